/**
 * Counts of what a fake upstream did, with promises that resolve once a count is reached:
 * what tests wait on instead of sleeping.
 */

/**
 * What a fake reports: `request` (one received, body read), `reset` (a connection closed
 * unanswered), `stall` (a stream or body began waiting on a gate), `cut` (a body aborted),
 * `done` (a streamed body ended cleanly, its last byte handed to the server).
 */
export type FakeEvent = "request" | "reset" | "stall" | "cut" | "done";

/** Event counts since the fake started, and waiters on them. */
export class Tally {
  readonly #counts = new Map<FakeEvent, number>();
  #waiters: { event: FakeEvent; count: number; resolve: () => void }[] = [];

  /** How many times `event` happened. */
  count(event: FakeEvent): number {
    return this.#counts.get(event) ?? 0;
  }

  /** Counts one `event` and resolves the waiters it satisfies. */
  add(event: FakeEvent): void {
    this.#counts.set(event, this.count(event) + 1);
    const due = this.#waiters.filter((w) => w.event === event && w.count <= this.count(event));
    this.#waiters = this.#waiters.filter((waiter) => !due.includes(waiter));
    for (const waiter of due) waiter.resolve();
  }

  /** Resolves once `event` happened `count` times in all. */
  reached(event: FakeEvent, count = 1): Promise<void> {
    if (this.count(event) >= count) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiters.push({ event, count, resolve });
    return promise;
  }
}
