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

/** Wraps a lookup with a cache of found and not-found answers. */
export function cacheKeyLookup(lookup: KeyLookup, now: () => number): KeyLookup {
  const entries = new Map<string, { at: number; record: Promise<KeyRecord | undefined> }>();
  return function cachedKeyLookup(hash) {
    const at = now();
    const entry = entries.get(hash);
    if (entry && at - entry.at < KEY_CACHE_TTL_MS) return entry.record;
    if (entries.size >= MAX_ENTRIES) entries.clear();
    const record = lookup(hash);
    entries.set(hash, { at, record });
    record.catch(() => entries.delete(hash));
    return record;
  };
}
