/** A config's problems as the operator reads them: a TOML path and what was expected there. */
import type * as z from "zod/mini";

/** A key in a table or an index in an array. */
export type PathSegment = string | number;

/** One thing wrong with a config value: where it is, and what was expected instead. */
export interface Problem {
  path: PathSegment[];
  message: string;
  /** The key the problem is about when `path` is its table's: an unknown key's own path. */
  keyPath?: PathSegment[];
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

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

/**
 * zod's issues as problems, in its order (the schema's): an unknown key each on its own,
 * a bad record key by what its key rule says, and one problem a path (a number refused
 * by two of its checks says so once).
 */
export function problemsOf(issues: readonly z.core.$ZodIssue[]): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const add = (problem: Problem) => {
    const id = `${formatPath(problem.keyPath ?? problem.path)}\n${problem.message}`;
    if (seen.has(id)) return;
    seen.add(id);
    problems.push(problem);
  };
  for (const issue of issues) {
    const path = issue.path.map(asSegment);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        add({ path, message: `unknown key ${JSON.stringify(key)}`, keyPath: [...path, key] });
      }
    } else if (issue.code === "invalid_key") {
      add({ path, message: issue.issues[0]?.message ?? issue.message });
    } else {
      add({ path, message: issue.message });
    }
  }
  return problems;
}

function asSegment(key: PropertyKey): PathSegment {
  return typeof key === "symbol" ? String(key) : key;
}
