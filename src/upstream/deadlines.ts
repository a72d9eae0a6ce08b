/**
 * The deadlines of one upstream exchange on one timer: the total deadline, plus the
 * deadline of whatever the exchange waits for now (headers, a body, the next chunk).
 * The timer is set for the earliest deadline and, when it fires early for a deadline
 * that moved (a wait that ended), re-arms itself for what is left: a request sets one
 * timer instead of one per wait, and a long stream does not set and clear one per chunk.
 */

/** A deadline passed; the message says which. */
export type Expired = (message: string) => void;

/** One wait's deadline, removed when the wait ends. */
export interface Wait {
  end(): void;
}

/**
 * A wait that happens again and again (a stream's read of its next chunk): one deadline
 * object moved on each start, so a read costs two clock readings and no allocation.
 */
export interface RepeatedWait {
  /** Starts a wait of the set length; returns the time it started. */
  start(): number;
  /** Ends the current wait; returns the time it ended. */
  end(): number;
}

/** The deadlines of one exchange. */
export interface Deadlines {
  /** Starts a wait that expires with `message` after `ms` unless ended first. */
  wait(ms: number, message: string): Wait;
  /** A wait of `ms` that can be started and ended any number of times, expiring with `message`. */
  repeated(ms: number, message: string): RepeatedWait;
  /** Stops the timer; nothing expires after this. */
  stop(): void;
}

interface Deadline {
  at: number;
  message: string;
}

/** Deadlines over `now` (milliseconds), starting with the total one. */
export function createDeadlines(
  totalMs: number,
  totalMessage: string,
  expired: Expired,
  now: () => number = () => performance.now(),
): Deadlines {
  const total: Deadline = { at: now() + totalMs, message: totalMessage };
  const waits = new Set<Deadline>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedFor = Infinity;
  let stopped = false;

  const earliest = (): Deadline => {
    let first = total;
    for (const deadline of waits) if (deadline.at < first.at) first = deadline;
    return first;
  };
  // Every deadline is at or after the armed moment (when the timer fires it looks again),
  // so one just set or moved is the only one that can need an earlier timer: no search.
  const arm = (set: Deadline) => {
    if (stopped || set.at >= armedFor) return;
    clearTimeout(timer);
    armedFor = set.at;
    timer = setTimeout(fire, Math.max(0, set.at - now()));
  };
  const fire = () => {
    timer = undefined;
    armedFor = Infinity;
    if (stopped) return;
    const next = earliest();
    if (next.at <= now()) {
      stopped = true;
      expired(next.message);
    } else {
      arm(next);
    }
  };
  arm(total);

  return {
    wait(ms, message) {
      const deadline = { at: now() + ms, message };
      waits.add(deadline);
      arm(deadline);
      return { end: () => void waits.delete(deadline) };
    },
    repeated(ms, message) {
      const deadline = { at: Infinity, message };
      waits.add(deadline);
      return {
        start() {
          const started = now();
          deadline.at = started + ms;
          arm(deadline);
          return started;
        },
        end() {
          deadline.at = Infinity;
          return now();
        },
      };
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
