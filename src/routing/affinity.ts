/**
 * Cache affinity's memory: the channel and channel key that last served each
 * conversation, so that its next turn goes where the upstream's prompt cache is warm.
 * A least-recently-served table bounded in entries, whose bindings also lapse after an
 * idle time. It lives in one process: nodes on one PostgreSQL each keep their own.
 */

/** At most this many conversations are bound at once (~15 MiB at most). */
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

/** An empty table on a clock in milliseconds. */
export function createAffinityTable(options: {
  now: () => number;
  capacity?: number;
}): AffinityTable {
  const capacity = options.capacity ?? AFFINITY_CAPACITY;
  // A Map iterates in insertion order and every bind re-inserts: the least recently
  // served come first, and (the clock only moving forward) the longest idle too.
  const entries = new Map<string, { binding: Binding; servedAt: number }>();
  const expired = (servedAt: number, ttlMs: number) => options.now() - servedAt > ttlMs;
  return {
    find(conversation, ttlMs) {
      const entry = entries.get(conversation);
      if (!entry) return undefined;
      if (!expired(entry.servedAt, ttlMs)) return entry.binding;
      entries.delete(conversation);
      return undefined;
    },
    bind(conversation, binding, ttlMs) {
      entries.delete(conversation);
      // Each entry is let go once: amortized, a bind costs a constant.
      for (const [oldest, entry] of entries) {
        if (entries.size < capacity && !expired(entry.servedAt, ttlMs)) break;
        entries.delete(oldest);
      }
      entries.set(conversation, { binding, servedAt: options.now() });
    },
    get size() {
      return entries.size;
    },
  };
}
