/**
 * Cache affinity's memory: the channel and channel key that last served each
 * conversation, so that its next turn goes where the upstream's prompt cache is warm.
 * A least-recently-served table bounded in entries, whose bindings also lapse after an
 * idle time. It lives in one process: nodes on one PostgreSQL each keep their own.
 */

/**
 * At most this many conversations are bound at once: more than a busy gateway has active,
 * and a bound on what the table holds (a name, a channel and a key each), however many
 * conversations come and go.
 */
export const AFFINITY_CAPACITY = 100_000;

/** Where a conversation was last served. */
export interface Binding {
  channel: string;
  /**
   * The channel key that served it (the config's own string, not a copy), or undefined
   * for a channel without keys. The key, not its index: a reload may reorder the keys.
   */
  key: string | undefined;
}

/** The bindings of one router. */
export interface AffinityTable {
  /** The binding of a conversation, unless it has been idle longer than `ttlMs`. */
  find(conversation: string, ttlMs: number): Binding | undefined;
  /**
   * Binds a conversation (anew, or again) as the most recently served; the least recently
   * served make room, and those idle longer than `ttlMs` are let go.
   */
  bind(conversation: string, binding: Binding, ttlMs: number): void;
  /** How many conversations are bound. */
  readonly size: number;
}

/** A bound conversation, in a list from the least to the most recently served. */
interface Entry {
  conversation: string;
  binding: Binding;
  servedAt: number;
  older: Entry | undefined;
  newer: Entry | undefined;
}

/** An empty table on a clock in milliseconds. */
export function createAffinityTable(options: {
  now: () => number;
  capacity?: number;
}): AffinityTable {
  const capacity = options.capacity ?? AFFINITY_CAPACITY;
  const entries = new Map<string, Entry>();
  // A list of its own, not the Map's insertion order: V8 walks the slots a Map's deletes
  // left at its front on every iteration, a walk that grows with the table.
  let oldest: Entry | undefined;
  let newest: Entry | undefined;
  const expired = (entry: Entry, ttlMs: number) => options.now() - entry.servedAt > ttlMs;
  const unlink = (entry: Entry) => {
    if (entry.older) entry.older.newer = entry.newer;
    else oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else newest = entry.older;
    entry.older = entry.newer = undefined;
  };
  const remove = (entry: Entry) => {
    unlink(entry);
    entries.delete(entry.conversation);
  };
  return {
    find(conversation, ttlMs) {
      const entry = entries.get(conversation);
      if (!entry) return undefined;
      if (!expired(entry, ttlMs)) return entry.binding;
      remove(entry);
      return undefined;
    },
    bind(conversation, binding, ttlMs) {
      let entry = entries.get(conversation);
      if (entry) {
        unlink(entry);
        entry.binding = binding;
        entry.servedAt = options.now();
      } else {
        entry = {
          conversation,
          binding,
          servedAt: options.now(),
          older: undefined,
          newer: undefined,
        };
        entries.set(conversation, entry);
      }
      entry.older = newest;
      if (newest) newest.newer = entry;
      else oldest = entry;
      newest = entry;
      // The clock only moves forward: the longest idle are the oldest. Each entry is let
      // go once, so a bind costs a constant, amortized.
      while (oldest && (entries.size > capacity || expired(oldest, ttlMs))) remove(oldest);
    },
    get size() {
      return entries.size;
    },
  };
}
