/**
 * A sliding 60-second window of counts (requests or tokens) in one-second buckets: a
 * fixed ring of 60 numbers per limited scope, so its cost does not grow with the rate.
 * A count leaves the window 60 s after the start of the second it was added in.
 */

/** The window's length: design.md's rpm and tpm are per minute. */
export const WINDOW_MS = 60_000;
const BUCKET_MS = 1_000;
const BUCKETS = WINDOW_MS / BUCKET_MS;

/** Counts of the last 60 seconds, read and written at times of the caller's clock. */
export class SlidingWindow {
  readonly #counts = new Float64Array(BUCKETS);
  /** The second of the newest bucket; buckets older than 60 s before it are zero. */
  #second = -Infinity;
  #total = 0;

  /** What the window holds at `nowMs`. */
  used(nowMs: number): number {
    this.#advance(nowMs);
    return this.#total;
  }

  /** Counts `amount` at `nowMs`. */
  add(amount: number, nowMs: number): void {
    if (amount <= 0) return;
    this.#advance(nowMs);
    this.#counts[slot(this.#second)] = this.#counts[slot(this.#second)]! + amount;
    this.#total += amount;
  }

  /**
   * Milliseconds from `nowMs` until `amount` more fits under `limit` (0: it fits now),
   * assuming nothing else is added; Infinity when `amount` alone is over the limit.
   */
  waitMs(amount: number, limit: number, nowMs: number): number {
    this.#advance(nowMs);
    const excess = this.#total + amount - limit;
    if (excess <= 0) return 0;
    if (amount > limit) return Infinity;
    let freed = 0;
    for (let second = this.#second - BUCKETS + 1; second <= this.#second; second++) {
      freed += this.#counts[slot(second)]!;
      if (freed >= excess) return this.#expiry(second) - nowMs;
    }
    return this.#expiry(this.#second) - nowMs;
  }

  /** Milliseconds from `nowMs` until everything counted has left the window (0: empty). */
  resetMs(nowMs: number): number {
    this.#advance(nowMs);
    if (this.#total <= 0) return 0;
    // Usually the newest bucket, just written: the scan stops at once.
    for (let second = this.#second; second > this.#second - BUCKETS; second--) {
      if (this.#counts[slot(second)]! > 0) return this.#expiry(second) - nowMs;
    }
    return 0;
  }

  /** When the bucket of `second` leaves the window. */
  #expiry(second: number): number {
    return (second + BUCKETS) * BUCKET_MS;
  }

  /** Moves the window to `nowMs`, zeroing the buckets that left it. */
  #advance(nowMs: number): void {
    // A clock that steps back keeps counting into the newest bucket: never into the past.
    const second = Math.max(Math.floor(nowMs / BUCKET_MS), this.#second);
    if (second === this.#second) return;
    if (second - this.#second >= BUCKETS) {
      this.#counts.fill(0);
      this.#total = 0;
    } else {
      for (let s = this.#second + 1; s <= second; s++) {
        this.#total -= this.#counts[slot(s)]!;
        this.#counts[slot(s)] = 0;
      }
    }
    this.#second = second;
  }
}

/** The ring index of a second (seconds before 1970 included, for odd test clocks). */
function slot(second: number): number {
  return ((second % BUCKETS) + BUCKETS) % BUCKETS;
}
