/**
 * An AlarmClock whose time moves only when a test says: deadlines, keep-alives and
 * retry pauses of a gateway built on it ring in `advance`, never by the wall clock, so a
 * test of a 30 s stall takes no time and never depends on the machine's speed.
 */
import { AlarmClock, type ClockTimer } from "../../src/clock/alarm_clock.ts";

/** A clock for tests: `advance` moves its time and rings what is due. */
export class ManualClock extends AlarmClock {
  readonly #time: { now: number };
  readonly #timer: { fire?: () => void; at: number; handle: number };

  constructor(start = 1_000_000) {
    const time = { now: start };
    const pending: { fire?: () => void; at: number; handle: number } = { at: Infinity, handle: 0 };
    const timer: ClockTimer = {
      set(fire, ms) {
        pending.fire = fire;
        pending.at = time.now + ms;
        return ++pending.handle;
      },
      clear(handle) {
        if (handle !== pending.handle) return;
        pending.fire = undefined;
        pending.at = Infinity;
      },
      ref() {},
    };
    super(() => time.now, timer);
    this.#time = time;
    this.#timer = pending;
  }

  /** Moves time on by `ms`, ringing each alarm due on the way at its own time. */
  advance(ms: number): void {
    const end = this.#time.now + ms;
    for (let due = this.#timer.at; due <= end; due = this.#timer.at) {
      this.#time.now = Math.max(this.#time.now, due);
      const fire = this.#timer.fire;
      this.#timer.fire = undefined;
      this.#timer.at = Infinity;
      fire?.();
    }
    this.#time.now = end;
  }

  /**
   * Moves time on in steps of `stepMs` until `done` resolves, letting the gateway's I/O
   * run between steps: for a wait the test cannot see start (a deadline set once the
   * gateway has read what came before).
   */
  async advanceUntil<T>(done: Promise<T>, stepMs: number, maxSteps = 1_000): Promise<T> {
    let finished = false;
    const result = done.finally(() => finished = true);
    for (let step = 0; step < maxSteps && !finished; step++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (!finished) this.advance(stepMs);
    }
    return await result;
  }
}
