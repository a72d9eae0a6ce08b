/**
 * One timer for the deadlines of many streams: alarms kept in a binary heap by time,
 * and one runtime timer set for the earliest. An open stream waits on an idle timeout
 * and on its next keep-alive; a runtime timer each costs heap and a timer callback per
 * stream, which thousands of idle streams multiply.
 * Each app makes its own clock. A clock with no alarm left keeps its timer, unreferenced
 * (it holds no process open), so that the next request's alarms, set later than it,
 * need no new timer: a lone request at a time would otherwise make and clear two.
 */

import type { StopSignal } from "./stop_signal.ts";

/** What an alarm rings. */
export interface Ringing {
  /** The alarm's time has come; `now` is the clock's reading. */
  ring(now: number): void;
}

/** One alarm of a clock: not set, or set to ring once at `at`. */
export class Alarm {
  /** When it rings (the clock's time); Infinity while not set. */
  at = Infinity;
  /** Its index in the clock's heap, -1 while not set. */
  slot = -1;
  /** The clock's last pass that rang it. */
  rangIn = 0;

  constructor(readonly clock: AlarmClock, readonly target: Ringing) {}

  /** Sets the alarm to ring at `at`, or moves it there if it was set. */
  set(at: number): void {
    this.clock.set(this, at);
  }

  /** Unsets the alarm; it does not ring. */
  cancel(): void {
    this.clock.cancel(this);
  }
}

/**
 * The one timer under a clock: the runtime's by default; a test passes its own to move
 * time by hand (tests/fakes/manual_clock.ts).
 */
export interface ClockTimer {
  set(fire: () => void, ms: number): unknown;
  clear(handle: unknown): void;
  /** Whether the pending timer holds the process open. */
  ref(handle: unknown, held: boolean): void;
}

type RuntimeTimer = ReturnType<typeof setTimeout>;

/** The runtime's timers. */
const RUNTIME_TIMER: ClockTimer = {
  set: (fire, ms) => setTimeout(fire, ms),
  clear: (handle) => clearTimeout(handle as RuntimeTimer),
  ref: (handle, held) =>
    held ? Deno.refTimer(handle as RuntimeTimer) : Deno.unrefTimer(handle as RuntimeTimer),
};

/** Alarms over one runtime timer; `now` in milliseconds (performance.now() by default). */
export class AlarmClock {
  readonly now: () => number;
  readonly #timerOf: ClockTimer;
  readonly #heap: Alarm[] = [];
  #timer: unknown;
  /** The time the timer is set for; Infinity when it is not set. */
  #armedFor = Infinity;
  /** Whether due alarms are ringing: the timer is set once they all rang. */
  #firing = false;
  /** Counts the timer's passes over the due alarms. */
  #pass = 0;

  constructor(now: () => number = () => performance.now(), timer: ClockTimer = RUNTIME_TIMER) {
    this.now = now;
    this.#timerOf = timer;
  }

  /** Resolves after `ms` on this clock; a stop rejects it at once with the stop's reason. */
  sleep(ms: number, stop?: StopSignal): Promise<void> {
    if (stop?.aborted) return Promise.reject(stop.reason);
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    const alarm = this.alarm({
      ring() {
        stop?.removeEventListener("abort", stopped);
        resolve();
      },
    });
    const stopped = () => {
      alarm.cancel();
      reject(stop!.reason);
    };
    stop?.addEventListener("abort", stopped, { once: true });
    alarm.set(this.now() + ms);
    return promise;
  }

  /** When the earliest alarm rings; Infinity when none is set. */
  get next(): number {
    return this.#heap[0]?.at ?? Infinity;
  }

  /** A new alarm for `target`, not set yet. */
  alarm(target: Ringing): Alarm {
    return new Alarm(this, target);
  }

  /** How many alarms are set. */
  get size(): number {
    return this.#heap.length;
  }

  /** Sets `alarm` to ring at `at` (moving it if it was set). */
  set(alarm: Alarm, at: number): void {
    const heap = this.#heap;
    if (alarm.slot < 0) {
      // The first alarm after the last went: the timer kept since holds the process again.
      if (heap.length === 0 && this.#timer !== undefined) this.#timerOf.ref(this.#timer, true);
      alarm.slot = heap.length;
      heap.push(alarm);
      alarm.at = at;
      this.#up(alarm.slot);
    } else {
      const later = at > alarm.at;
      alarm.at = at;
      if (later) this.#down(alarm.slot);
      else this.#up(alarm.slot);
    }
    this.#arm();
  }

  /** Unsets `alarm` (nothing if it was not set). */
  cancel(alarm: Alarm): void {
    const slot = alarm.slot;
    if (slot < 0) return;
    const heap = this.#heap;
    const last = heap.pop()!;
    alarm.slot = -1;
    alarm.at = Infinity;
    if (last !== alarm) {
      heap[slot] = last;
      last.slot = slot;
      this.#down(slot);
      this.#up(last.slot);
    }
    // With nothing left to ring the timer stays, holding no process open: it rings for
    // nothing once, or the next alarms, set later, keep it.
    if (heap.length === 0 && this.#timer !== undefined) this.#timerOf.ref(this.#timer, false);
  }

  // The timer is set for the earliest alarm; one set later than that is found when it
  // fires (it looks again), so only an alarm set earlier re-sets the timer.
  #arm(): void {
    if (this.#firing) return;
    const first = this.#heap[0];
    if (!first || first.at >= this.#armedFor) return;
    if (this.#timer !== undefined) this.#timerOf.clear(this.#timer);
    this.#armedFor = first.at;
    // Whole milliseconds up: a timer that fired early would only look and set itself again.
    this.#timer = this.#timerOf.set(this.#fire, Math.max(0, Math.ceil(first.at - this.now())));
  }

  readonly #fire = () => {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = this.now();
    const heap = this.#heap;
    const pass = ++this.#pass;
    this.#firing = true;
    try {
      // An alarm rings once a pass: one set again for a time already past (a keep-alive
      // whose write is still under way) waits for the next pass, after the event loop has
      // run I/O, instead of holding the loop here for ever.
      for (
        let first = heap[0];
        first && first.at <= now && first.rangIn !== pass;
        first = heap[0]
      ) {
        this.cancel(first);
        first.rangIn = pass;
        first.target.ring(now);
      }
    } finally {
      this.#firing = false;
      this.#arm();
    }
  };

  #up(slot: number): void {
    const heap = this.#heap;
    const alarm = heap[slot]!;
    while (slot > 0) {
      const parentSlot = (slot - 1) >> 1;
      const parent = heap[parentSlot]!;
      if (parent.at <= alarm.at) break;
      heap[slot] = parent;
      parent.slot = slot;
      slot = parentSlot;
    }
    heap[slot] = alarm;
    alarm.slot = slot;
  }

  #down(slot: number): void {
    const heap = this.#heap;
    const alarm = heap[slot]!;
    for (;;) {
      const left = slot * 2 + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.at < heap[left]!.at ? right : left;
      const next = heap[child]!;
      if (next.at >= alarm.at) break;
      heap[slot] = next;
      next.slot = slot;
      slot = child;
    }
    heap[slot] = alarm;
    alarm.slot = slot;
  }
}
