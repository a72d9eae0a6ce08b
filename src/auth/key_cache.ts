/**
 * A short-lived cache in front of key lookups: the request path reads the
 * database at most once a second per key, and a key changed by the CLI takes
 * effect within that second, on every node sharing the database (the 2 s that
 * design.md promises; tests/multinode_test.ts checks it across processes).
 */
import type { KeyLookup, KeyRecord, KnownKeyLookup } from "./principal.ts";

/** Lookups younger than this are answered from memory. */
export const KEY_CACHE_TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

/** One lookup: its promise, and once it resolved, its answer. */
interface Entry {
  at: number;
  record: Promise<KeyRecord | undefined>;
  known: boolean;
  found: KeyRecord | undefined;
}

/**
 * Wraps a lookup with a cache of found and not-found answers; an answer already here comes
 * at once, not as a promise (an await costs ~1 µs in place, bench/README.md).
 */
export function cacheKeyLookup(lookup: KeyLookup, now: () => number): KnownKeyLookup {
  const entries = new Map<string, Entry>();
  return function cachedKeyLookup(hash) {
    const at = now();
    const entry = entries.get(hash);
    if (entry && at - entry.at < KEY_CACHE_TTL_MS) return entry.known ? entry.found : entry.record;
    if (entries.size >= MAX_ENTRIES) entries.clear();
    const record = lookup(hash);
    const fresh: Entry = { at, record, known: false, found: undefined };
    entries.set(hash, fresh);
    record.then((found) => {
      fresh.known = true;
      fresh.found = found;
    }, () => {
      if (entries.get(hash) === fresh) entries.delete(hash);
    });
    return record;
  };
}
