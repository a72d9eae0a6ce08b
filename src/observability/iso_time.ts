/**
 * ISO 8601 UTC timestamps (`2026-11-26T23:51:03.042Z`) of times in milliseconds since the
 * epoch, for the request log. `Date.prototype.toISOString` was most of a log line's
 * making: the text up to the second is made once a second here, and a timestamp within it
 * is a concatenation.
 */
export class IsoTime {
  #second = NaN;
  /** The current second's timestamp without its milliseconds and `Z`, ending in the dot. */
  #prefix = "";

  /** The timestamp of `ms`, to the millisecond (rounded down, as `toISOString` does). */
  format(ms: number): string {
    const whole = Math.floor(ms);
    const second = Math.floor(whole / 1000);
    if (second !== this.#second) {
      this.#second = second;
      // "….000Z" in every year `Date` spells (4 digits, or a sign and 6).
      this.#prefix = new Date(second * 1000).toISOString().slice(0, -4);
    }
    const milli = whole - second * 1000;
    return `${this.#prefix}${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
  }
}
