/**
 * The zod field schemas of the config file, each with the message its problem gets:
 * what was expected and, for a value of the wrong kind, which kind it was. A message never
 * quotes the value, which may be a secret.
 */
import * as z from "zod/mini";

/** A message from the value zod refused: `is required` when it is missing. */
type Wording = (value: unknown) => string;

/** An error option for zod from a wording of the refused value. */
function says(wording: Wording) {
  return { error: (issue: { input?: unknown }) => wording(issue.input) };
}

/** A value of the wrong kind: "is required" when missing, else `expected` and the kind found. */
function mismatch(expected: string): Wording {
  return (value) => value === undefined ? "is required" : `${expected}, got ${describeKind(value)}`;
}

/** A `${NAME}` reference the loader left in place: its variable is not set. */
const UNSET_VARIABLE = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

/** Any string. */
export function text() {
  return z.string(says(mismatch("must be a string")));
}

/** A string that matches `pattern`; `message` says what it must look like. */
export function matching(pattern: RegExp, message: string) {
  return text().check(z.regex(pattern, message));
}

/** A string of at least one character. */
export function nonEmptyText() {
  return text().check(z.minLength(1, "must not be empty"));
}

/** `true` or `false`. */
export function flag() {
  return z.boolean(says(mismatch("must be true or false")));
}

/** One of the strings in `choices`. */
export function oneOf<const C extends readonly [string, ...string[]]>(choices: C) {
  const expected = `must be one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`;
  return z.enum(
    choices,
    says((value) => typeof value === "string" ? expected : mismatch(expected)(value)),
  );
}

/** An integer of at least 1. */
export function positiveInteger() {
  return integerFrom(1, "a positive integer");
}

/** An integer of at least 0. */
export function nonNegativeInteger() {
  return integerFrom(0, "a non-negative integer");
}

/** Any integer. */
export function integer() {
  return integerFrom(undefined, "an integer");
}

/** A finite number of at least 0, such as a price. */
export function nonNegativeNumber() {
  const wording = numberWording("must be a non-negative number");
  return z.number(says(wording)).check(z.minimum(0, says(wording)));
}

/**
 * An http:// or https:// URL; output trimmed, and without tabs or line breaks (as the URL
 * parser reads it). A value that still names an unset `${VAR}` is not checked: the loader
 * reports the variable where it is needed, and a command that needs no channel runs without it.
 */
export function httpUrl() {
  const expected = "must be a URL starting with http:// or https://";
  return z.string(says(mismatch(expected))).check(
    z.trim(),
    z.refine((value) => UNSET_VARIABLE.test(value) || isHttpUrl(value), expected),
    z.overwrite((value) => value.replace(/[\t\n\r]/g, "")),
  );
}

/**
 * A `host:port` to listen on (an IPv6 host in brackets; no host: every address), as the
 * server splits it. A value naming an unset `${VAR}` is left to the loader, as for `httpUrl`.
 */
export function listenAddress() {
  const expected = 'must be "host:port", e.g. "127.0.0.1:8080" or "[::]:8080"';
  const portOf = (value: string) =>
    /^(?:\[[0-9A-Fa-f:.]+\]|[^\s:[\]]*):(\d+)$/.exec(value.trim())?.[1];
  return z.string(says(mismatch(expected))).check(
    z.refine((value) => UNSET_VARIABLE.test(value) || portOf(value) !== undefined, {
      message: expected,
      abort: true,
    }),
    z.refine(
      (value) => UNSET_VARIABLE.test(value) || Number(portOf(value)) <= 65_535,
      "must have a port from 0 to 65535",
    ),
  );
}

/**
 * An origin a browser may call from: `"*"` for any, else a scheme, host and port as the
 * browser sends them in `Origin` (`https://app.example.com`, no path, no trailing slash).
 */
export function corsOrigin() {
  const expected = 'must be "*" or an origin such as "https://app.example.com" (no path)';
  const isOrigin = (value: string) => {
    const url = /^https?:\/\//i.test(value) ? URL.parse(value) : null;
    return url !== null && url.origin === value;
  };
  return z.string(says(mismatch(expected))).check(
    z.refine((value) => value === "*" || isOrigin(value), expected),
  );
}

/** A table with exactly the keys of `shape`; any other key is a problem of its own. */
export function table<S extends z.core.$ZodLooseShape>(shape: S) {
  return onlyTables(z.strictObject(shape, says(mismatch("must be a table"))));
}

/** A table of any keys, each value read by `value` and each key checked by `key` if given. */
export function tableOf<V extends z.ZodMiniType>(
  value: V,
  key?: { pattern: RegExp; message: string },
) {
  const keys = key ? z.string().check(z.regex(key.pattern, key.message)) : z.string();
  return onlyTables(z.record(keys, value, says(mismatch("must be a table"))));
}

/** An array whose every item is read by `item`; with `atLeastOne`, an empty one is a problem. */
export function list<T extends z.ZodMiniType>(item: T, atLeastOne?: string) {
  const array = z.array(item, says(mismatch("must be an array")));
  return atLeastOne === undefined ? array : array.check(z.minLength(1, atLeastOne));
}

/** `schema` with a description, which the JSON Schema carries to editors. */
export function described<S extends z.ZodMiniType>(schema: S, description: string): S {
  return schema.check(z.describe(description));
}

/**
 * `schema`, taking `value` when the key is left out: a function gives a fresh array or
 * table each time, so no two configs share one.
 */
export function withDefault<S extends z.ZodMiniType>(
  schema: S,
  value: z.core.util.NoUndefined<z.output<S>> | (() => z.core.util.NoUndefined<z.output<S>>),
  description?: string,
) {
  // Described inside: checks added to the default's own schema would clone it, and the
  // clone would keep one value of `value()` for every config.
  return z._default(description === undefined ? schema : described(schema, description), value);
}

/** A table that, when left out, is read as an empty one, so each of its keys takes its default. */
export function orDefaults<S extends z.ZodMiniType>(schema: S, description?: string) {
  const inner = description === undefined ? schema : described(schema, description);
  return z.prefault(inner, {} as z.input<S>);
}

/** `schema`, or nothing when the key is left out. */
export function optional<S extends z.ZodMiniType>(schema: S, description?: string) {
  return description === undefined
    ? z.optional(schema)
    : described(z.optional(schema), description);
}

/**
 * `schema`, refusing objects that are not plain tables before it reads them: zod would take
 * a TOML date (an object with no keys of its own) for an empty table.
 */
function onlyTables<S extends z.ZodMiniType>(schema: S) {
  const refuseOtherObjects = z.transform((value: unknown, ctx) => {
    if (typeof value === "object" && value !== null && !Array.isArray(value) && !isTable(value)) {
      ctx.issues.push({
        code: "custom",
        message: mismatch("must be a table")(value),
        input: value,
      });
    }
    return value;
  });
  return z.pipe(refuseOtherObjects, schema);
}

function integerFrom(minimum: number | undefined, noun: string) {
  const wording = numberWording(`must be ${noun}`);
  // z.int() also refuses integers beyond 2^53, which are no longer exact.
  const integer = z.int(says(wording));
  return minimum === undefined ? integer : integer.check(z.minimum(minimum, says(wording)));
}

/** For a number field: the kind of a non-number, else what is wrong with the number. */
function numberWording(expected: string): Wording {
  return (value) =>
    typeof value === "number"
      ? `${expected}, got ${describeNumber(value)}`
      : mismatch(expected)(value);
}

function isHttpUrl(value: string): boolean {
  // The scheme must be followed by "//": the URL parser alone would take "http:host".
  const url = /^https?:\/\//i.test(value) ? URL.parse(value) : null;
  return url !== null && (url.protocol === "http:" || url.protocol === "https:");
}

/** Whether `value` is a TOML table: a plain object, not an array, a date or a class instance. */
function isTable(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
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
