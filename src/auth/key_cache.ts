/**
 * A short-lived cache in front of key lookups: the request path reads the
 * database at most once a second per key, and a key changed by the CLI takes
 * effect within that second, on every node sharing the database (the 2 s that
 * design.md promises; tests/multinode_test.ts checks it across processes).
 */
import type { KeyLookup, KeyRecord } from "./principal.ts";

/** Lookups younger than this are answered from memory. */
export const KEY_CACHE_TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

/** One lookup: when it was made, and its answer to come. */
interface Entry {
  at: number;
  record: Promise<KeyRecord | undefined>;
}

/**
 * Wraps a lookup with a cache of found and not-found answers. Requests for the same key
 * within the second share one lookup; a failed lookup is forgotten, so the next asks again.
 */
export function cacheKeyLookup(lookup: KeyLookup, now: () => number): KeyLookup {
  const entries = new Map<string, Entry>();
  return function cachedKeyLookup(hash) {
    const at = now();
    const entry = entries.get(hash);
    if (entry && at - entry.at < KEY_CACHE_TTL_MS) return entry.record;
    if (entries.size >= MAX_ENTRIES) entries.clear();
    const fresh: Entry = { at, record: lookup(hash) };
    entries.set(hash, fresh);
    fresh.record.catch(() => {
      if (entries.get(hash) === fresh) entries.delete(hash);
    });
    return fresh.record;
  };
}
