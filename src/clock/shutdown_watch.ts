/**
 * The gateway's shutdown deadline as seen by the requests in flight: one listener on the
 * signal, and a set of the requests' listeners. An AbortSignal's own listener list is
 * searched on every add and remove, which costs each of thousands of open streams time
 * in proportion to all the others: quadratic in the streams open.
 */

/** What the end of the grace period tells: a request's own method, no closure to keep. */
export interface ShutdownListener {
  shutdownOver(): void;
}

/** Tells the requests in flight that the shutdown grace period is over. */
export interface ShutdownWatch {
  /** Whether the grace period is already over. */
  readonly over: boolean;
  /** Tells `listener` when the grace period ends (not if it already has). */
  watch(listener: ShutdownListener): void;
  /** Stops telling `listener`. */
  unwatch(listener: ShutdownListener): void;
}

/** A watch over `signal`, aborted when the grace period is over. */
export function watchShutdown(signal: AbortSignal): ShutdownWatch {
  const waiting = new Set<ShutdownListener>();
  signal.addEventListener("abort", () => {
    for (const listener of waiting) listener.shutdownOver();
    waiting.clear();
  }, { once: true });
  return {
    get over() {
      return signal.aborted;
    },
    watch: (listener) => void waiting.add(listener),
    unwatch: (listener) => void waiting.delete(listener),
  };
}
