/**
 * The deadlines of one upstream exchange on one alarm of the app's clock: the total
 * deadline, plus the deadline of whatever the exchange waits for now (headers, a body,
 * the next chunk). The alarm is set for the earliest deadline and, when it rings early
 * for a deadline that moved (a wait that ended), is set again for what is left: an
 * exchange sets one alarm instead of one per wait, and a long stream does not set and
 * clear one per chunk. A deadline's message is built only if it passes.
 */
import type { Alarm, AlarmClock, Ringing } from "./alarm_clock.ts";

/** What a passed deadline says, from its length and its subject (a constant: no closure each). */
export type Describe = (ms: number, subject: string) => string;

/** A deadline passed; the message says which. */
export type Expired = (message: string) => void;

/** One wait's deadline, removed when the wait ends. */
export interface Wait {
  end(): void;
}

/**
 * A wait that happens again and again (a stream's read of its next chunk): one deadline
 * moved on each start, so a read costs two clock readings and no allocation.
 */
export interface RepeatedWait {
  /** Starts a wait of the set length; returns the time it started. */
  start(): number;
  /** Ends the current wait; returns the time it ended. */
  end(): number;
}

/** One deadline of an exchange: a wait, the repeated wait or the total deadline. */
class Deadline implements Wait, RepeatedWait {
  /** When it passes; Infinity while nothing is waited for. */
  at = Infinity;

  constructor(
    readonly owner: Deadlines,
    readonly ms: number,
    readonly subject: string,
    readonly describe: Describe,
    readonly repeats: boolean,
  ) {}

  start(): number {
    const now = this.owner.clock.now();
    this.at = now + this.ms;
    this.owner.moved(this);
    return now;
  }

  end(): number {
    this.at = Infinity;
    if (!this.repeats) this.owner.remove(this);
    return this.owner.clock.now();
  }
}

/** What an exchange's deadlines are made of. */
export interface DeadlinesOptions {
  clock: AlarmClock;
  totalMs: number;
  /** The total deadline's message. */
  describeTotal: Describe;
  /** Called once, with the message of the first deadline that passed. */
  expired: Expired;
}

/** The deadlines of one exchange, from now on. */
export class Deadlines implements Ringing {
  readonly clock: AlarmClock;
  readonly #alarm: Alarm;
  /** The total deadline first, then the waits (a handful at most). */
  readonly #deadlines: Deadline[];
  /** Undefined once stopped or expired: nothing expires after that. */
  #expired: Expired | undefined;

  constructor(options: DeadlinesOptions) {
    this.clock = options.clock;
    this.#alarm = options.clock.alarm(this);
    this.#expired = options.expired;
    const total = new Deadline(this, options.totalMs, "", options.describeTotal, false);
    this.#deadlines = [total];
    total.start();
  }

  /** Starts a wait that expires after `ms` unless ended first. */
  wait(ms: number, subject: string, describe: Describe): Wait {
    const deadline = new Deadline(this, ms, subject, describe, false);
    this.#deadlines.push(deadline);
    deadline.start();
    return deadline;
  }

  /** A wait of `ms` that can be started and ended any number of times. */
  repeated(ms: number, subject: string, describe: Describe): RepeatedWait {
    const deadline = new Deadline(this, ms, subject, describe, true);
    this.#deadlines.push(deadline);
    return deadline;
  }

  /** Stops the deadlines; nothing expires after this. */
  stop(): void {
    this.#expired = undefined;
    this.#alarm.cancel();
  }

  /**
   * Told by a deadline that was set: the alarm moves if that one is now the earliest.
   * Never later (a wait that ended leaves the alarm where it was): `ring` looks again.
   */
  moved(deadline: Deadline): void {
    if (this.#expired && deadline.at < this.#alarm.at) this.#alarm.set(deadline.at);
  }

  /** Told by a wait that ended: it leaves the list. */
  remove(deadline: Deadline): void {
    const at = this.#deadlines.indexOf(deadline);
    if (at > 0) this.#deadlines.splice(at, 1);
  }

  /** The alarm rang: the earliest deadline passed, or the alarm is set for it. */
  ring(now: number): void {
    const expired = this.#expired;
    if (!expired) return;
    let first = this.#deadlines[0]!;
    for (const deadline of this.#deadlines) if (deadline.at < first.at) first = deadline;
    if (first.at > now) return this.#alarm.set(first.at);
    this.#expired = undefined;
    expired(first.describe(first.ms, first.subject));
  }
}
