/**
 * Values that are often here at once and sometimes later. A step on a request's path that
 * is usually ready answers with its value rather than a promise: each suspended `await`
 * costs ~1 µs in place, and a request takes dozens of steps (bench/README.md). Callers
 * await only a promise: `const value = got instanceof Promise ? await got : got`.
 */

/** A value, or a promise of it. */
export type Awaitable<T> = T | Promise<T>;

/** `next` of `value`: at once when `value` is here, else once it comes. */
export function andThen<T, R>(value: Awaitable<T>, next: (value: T) => Awaitable<R>): Awaitable<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
