/**
 * Finds where a key of a config file is written: smol-toml gives lines for syntax errors
 * only, so a problem found later is placed by scanning the text for its table headers and
 * `key =` lines. A key inside an inline table or a multi-line value is placed on the line
 * of the outermost key that holds it.
 */
import type { PathSegment } from "./problems.ts";

/** The line (1 first) of the key at `path` or, failing that, of its nearest enclosing key. */
export type KeyLocator = (path: readonly PathSegment[]) => number | undefined;

/** A locator for the TOML document `text`. */
export function locateKeys(text: string): KeyLocator {
  const lines = new Map<string, number>();
  const note = (path: readonly PathSegment[], line: number) => {
    const id = JSON.stringify(path);
    if (!lines.has(id)) lines.set(id, line);
  };
  /** How many of each array of tables (by its path) have been opened so far. */
  const arrayCounts = new Map<string, number>();
  let table: PathSegment[] = [];
  let multiline: string | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (multiline !== undefined) {
      if (countOf(raw, multiline) % 2 === 1) multiline = undefined;
      return;
    }
    const header = /^\s*(\[\[?)\s*(.+?)\s*\]\]?\s*(?:#.*)?$/.exec(raw);
    if (header) {
      const keys = splitKey(header[2] ?? "");
      if (keys === undefined) return;
      const path = withArrayIndexes(keys, arrayCounts);
      if (header[1] === "[[") {
        const id = JSON.stringify(path);
        const next = arrayCounts.get(id) ?? 0;
        arrayCounts.set(id, next + 1);
        table = [...path, next];
      } else {
        table = path;
      }
      note(table, line);
      return;
    }
    const assignment =
      /^\s*((?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'))*)\s*=(.*)$/
        .exec(raw);
    if (!assignment) return;
    const keys = splitKey(assignment[1] ?? "");
    if (keys === undefined) return;
    for (let depth = 1; depth <= keys.length; depth++) {
      note([...table, ...keys.slice(0, depth)], line);
    }
    const value = assignment[2] ?? "";
    for (const quotes of ['"""', "'''"]) {
      if (countOf(value, quotes) % 2 === 1) multiline = quotes;
    }
  });
  return (path) => {
    for (let length = path.length; length > 0; length--) {
      const found = lines.get(JSON.stringify(path.slice(0, length)));
      if (found !== undefined) return found;
    }
    return undefined;
  };
}

/** A dotted key's parts, unquoted; undefined when it is not one. */
function splitKey(key: string): string[] | undefined {
  const parts: string[] = [];
  const part = /\s*(?:([A-Za-z0-9_-]+)|"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(\.|$)/y;
  while (part.lastIndex < key.length) {
    const match = part.exec(key);
    if (!match) return undefined;
    const quoted = match[2];
    parts.push(match[1] ?? (quoted !== undefined ? unescape(quoted) : match[3] ?? ""));
    if (match[4] === "") break;
  }
  return parts;
}

/** A header's path with the current index put after each array of tables it passes through. */
function withArrayIndexes(keys: string[], arrayCounts: Map<string, number>): PathSegment[] {
  const path: PathSegment[] = [];
  for (const key of keys) {
    path.push(key);
    const count = arrayCounts.get(JSON.stringify(path));
    if (count !== undefined && path.length < keys.length) path.push(count - 1);
  }
  return path;
}

function unescape(quoted: string): string {
  try {
    return JSON.parse(`"${quoted}"`);
  } catch {
    return quoted;
  }
}

function countOf(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
