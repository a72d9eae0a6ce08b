/**
 * Field checks for the config schema: small readers that take an unknown value, report
 * every problem with its path, and build a fresh output value (so no two configs share
 * a default array or table). Hand-written in place of zod, which costs the serving
 * process about 9 MiB of resident memory.
 */

/** A key in a table or an index in an array. */
export type PathSegment = string | number;

/** One thing wrong with a config value: where it is, and what was expected instead. */
export interface Problem {
  path: PathSegment[];
  message: string;
}

/** Returned by a field that reported a problem, so callers can tell it from `undefined`. */
export const INVALID: unique symbol = Symbol("invalid");

/** Reads one value at `path`: its output, or INVALID after pushing each problem. */
export type Field<T> = (
  value: unknown,
  path: PathSegment[],
  problems: Problem[],
) => T | typeof INVALID;

/** The fields of a strict table, one per key of its output type. */
export type Fields<T> = { [K in keyof T]-?: Field<T[K]> };

const BARE_KEY = /^[A-Za-z0-9_-]+$/;
/** A `${NAME}` reference the loader left in place: its variable is not set. */
const UNSET_VARIABLE = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

/** Writes a path the way TOML would: dotted bare keys, quoted odd keys, `[i]` for array items. */
export function formatPath(path: readonly PathSegment[]): string {
  if (path.length === 0) return "(top level)";
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else {
      const key = BARE_KEY.test(segment) ? segment : JSON.stringify(segment);
      out += out === "" ? key : `.${key}`;
    }
  }
  return out;
}

/** A table with exactly the keys of `fields`, output in their order; any other key is a problem. */
export function table<T>(fields: Fields<T>): Field<T> {
  return function readTable(value, path, problems) {
    if (!isTable(value)) return mismatch(problems, path, "must be a table", value);
    const out: Record<string, unknown> = {};
    let valid = true;
    for (const key of Object.keys(fields) as (keyof T & string)[]) {
      const read = fields[key](value[key], [...path, key], problems);
      if (read === INVALID) valid = false;
      // A key given as `undefined` stays in the output, as the zod schema before this left it.
      else if (read !== undefined || Object.hasOwn(value, key)) out[key] = read;
    }
    // An unknown key is a problem, but the table still reads: the checks across fields then
    // run too, so a misspelt `base_ur` is reported alongside the base_url it leaves missing.
    for (const key of Object.keys(value)) {
      if (Object.hasOwn(fields, key)) continue;
      problems.push({ path, message: `unknown key ${JSON.stringify(key)}` });
    }
    return valid ? out as T : INVALID;
  };
}

/** A table of any keys, each value read by `field` and each key checked by `key` if given. */
export function tableOf<T>(field: Field<T>, key?: KeyRule): Field<Record<string, T>> {
  return function readTableOf(value, path, problems) {
    if (!isTable(value)) return mismatch(problems, path, "must be a table", value);
    const out: Record<string, T> = {};
    let valid = true;
    if (Object.getOwnPropertySymbols(value).some((s) => isEnumerable(value, s))) {
      problems.push({ path, message: "must have only string keys" });
      valid = false;
    }
    for (const name of Object.keys(value)) {
      // Assigning "__proto__" would replace the output's prototype; the zod schema skipped it too.
      if (name === "__proto__") continue;
      const at = [...path, name];
      if (key && !key.pattern.test(name)) {
        problems.push({ path: at, message: key.message });
        valid = false;
      }
      const read = field(value[name], at, problems);
      if (read === INVALID) valid = false;
      else out[name] = read;
    }
    return valid ? out : INVALID;
  };
}

/** What the keys of a `tableOf` must look like, and the problem when one does not. */
export interface KeyRule {
  pattern: RegExp;
  message: string;
}

/** An array whose every item is read by `field`; with `atLeastOne`, an empty one is a problem. */
export function list<T>(field: Field<T>, atLeastOne?: string): Field<T[]> {
  return function readList(value, path, problems) {
    if (!Array.isArray(value)) return mismatch(problems, path, "must be an array", value);
    if (atLeastOne && value.length === 0) return fail(problems, path, atLeastOne);
    const out: T[] = [];
    let valid = true;
    for (let index = 0; index < value.length; index++) {
      const read = field(value[index], [...path, index], problems);
      if (read === INVALID) valid = false;
      else out.push(read);
    }
    return valid ? out : INVALID;
  };
}

/** A field that may be left out; its output is then `undefined`. */
export function optional<T>(field: Field<T>): Field<T | undefined> {
  return (value, path, problems) => value === undefined ? undefined : field(value, path, problems);
}

/** A field that takes `makeDefault()` (a fresh value each time) when left out. */
export function withDefault<T>(field: Field<T>, makeDefault: () => T): Field<T> {
  return (value, path, problems) =>
    value === undefined ? makeDefault() : field(value, path, problems);
}

/** A table that, when left out, is read as an empty one, so each of its fields takes its default. */
export function orDefaults<T>(field: Field<T>): Field<T> {
  return (value, path, problems) => field(value === undefined ? {} : value, path, problems);
}

/** Any string. */
export const text: Field<string> = (value, path, problems) =>
  typeof value === "string" ? value : mismatch(problems, path, "must be a string", value);

/** A string that matches `pattern`; `message` says what it must look like. */
export function matching(pattern: RegExp, message: string): Field<string> {
  return (value, path, problems) => {
    if (typeof value !== "string") return mismatch(problems, path, "must be a string", value);
    return pattern.test(value) ? value : fail(problems, path, message);
  };
}

/** A string of at least one character. */
export const nonEmptyText: Field<string> = matching(/^[\s\S]/, "must not be empty");

/** `true` or `false`. */
export const flag: Field<boolean> = (value, path, problems) =>
  typeof value === "boolean" ? value : mismatch(problems, path, "must be true or false", value);

/** One of the strings in `choices`. */
export function oneOf<const C extends readonly string[]>(choices: C): Field<C[number]> {
  const expected = `must be one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`;
  return (value, path, problems) => {
    if (typeof value !== "string") return mismatch(problems, path, expected, value);
    return choices.includes(value) ? value : fail(problems, path, expected);
  };
}

/** An integer of at least 1. */
export const positiveInteger: Field<number> = integerFrom(1, "a positive integer");
/** An integer of at least 0. */
export const nonNegativeInteger: Field<number> = integerFrom(0, "a non-negative integer");
/** Any integer. */
export const integer: Field<number> = integerFrom(-Infinity, "an integer");

/** A finite number of at least 0, such as a price. */
export const nonNegativeNumber: Field<number> = (value, path, problems) => {
  const expected = "must be a non-negative number";
  if (typeof value !== "number") return mismatch(problems, path, expected, value);
  if (!Number.isFinite(value) || value < 0) {
    return fail(problems, path, `${expected}, got ${describeNumber(value)}`);
  }
  return value;
};

/**
 * An http:// or https:// URL; output trimmed, and without tabs or line breaks (as the URL
 * parser reads it). A value that still names an unset `${VAR}` is not checked: the loader
 * reports the variable where it is needed, and a command that needs no channel runs without it.
 */
export const httpUrl: Field<string> = (value, path, problems) => {
  const expected = "must be a URL starting with http:// or https://";
  if (typeof value !== "string") return mismatch(problems, path, expected, value);
  if (UNSET_VARIABLE.test(value)) return value;
  const trimmed = value.trim();
  // The scheme must be followed by "//": the URL parser alone would take "http:host".
  const url = /^https?:\/\//i.test(trimmed) ? URL.parse(trimmed) : null;
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    return fail(problems, path, expected);
  }
  return trimmed.replace(/[\t\n\r]/g, "");
};

/**
 * A `host:port` to listen on (an IPv6 host in brackets; no host: every address), as the
 * server splits it. A value naming an unset `${VAR}` is left to the loader, as for `httpUrl`.
 */
export const listenAddress: Field<string> = (value, path, problems) => {
  const expected = 'must be "host:port", e.g. "127.0.0.1:8080" or "[::]:8080"';
  if (typeof value !== "string") return mismatch(problems, path, expected, value);
  if (UNSET_VARIABLE.test(value)) return value;
  const port = /^(?:\[[0-9A-Fa-f:.]+\]|[^\s:[\]]*):(\d+)$/.exec(value.trim())?.[1];
  if (port === undefined) return fail(problems, path, expected);
  if (Number(port) > 65_535) return fail(problems, path, "must have a port from 0 to 65535");
  return value;
};

function integerFrom(minimum: number, noun: string): Field<number> {
  const expected = `must be ${noun}`;
  return (value, path, problems) => {
    if (typeof value !== "number") return mismatch(problems, path, expected, value);
    // Beyond 2^53 an integer is no longer exact, so it is refused (as the zod schema did).
    if (!Number.isSafeInteger(value) || value < minimum) {
      return fail(problems, path, `${expected}, got ${describeNumber(value)}`);
    }
    return value;
  };
}

function isEnumerable(value: object, key: PropertyKey): boolean {
  return Object.prototype.propertyIsEnumerable.call(value, key);
}

function fail(problems: Problem[], path: PathSegment[], message: string): typeof INVALID {
  problems.push({ path, message });
  return INVALID;
}

/** Whether `value` is a TOML table: a plain object, not an array, a date or a class instance. */
function isTable(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Reports a value of the wrong kind by its kind, never the value itself: it may be a secret. */
function mismatch(
  problems: Problem[],
  path: PathSegment[],
  expected: string,
  value: unknown,
): typeof INVALID {
  const message = value === undefined ? "is required" : `${expected}, got ${describeKind(value)}`;
  return fail(problems, path, message);
}

function describeKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value instanceof Date) return "a date";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
    case "bigint":
      return "a number";
    case "boolean":
      return "true or false";
    case "object":
      return isTable(value) ? "a table" : "an object that is not a table";
    default:
      return `a ${typeof value}`;
  }
}

function describeNumber(value: number): string {
  if (Number.isNaN(value)) return "nan (not a number)";
  if (!Number.isFinite(value)) return "an infinite number";
  if (!Number.isInteger(value)) return "a fraction";
  if (!Number.isSafeInteger(value)) return "an integer too large to hold exactly";
  if (value === 0) return "zero";
  return value < 0 ? "a negative number" : "a positive number";
}
