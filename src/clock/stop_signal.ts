/**
 * An abort signal of tollgate's own, for what ends an upstream exchange early (upstream/call.ts):
 * the client leaving, a deadline, the end of the shutdown's grace period. The runtime's
 * AbortSignal is an EventTarget, with listener records, option objects and WebIDL checks
 * on every call, paid on every request for features tollgate never uses. A StopSignal has
 * the part of AbortSignal's shape that tollgate's readers use, so a runtime AbortSignal
 * (a client's request signal) serves wherever one is given too.
 */

/** What a stop calls: a function, or an object's `handleEvent` (no closure to keep). */
export type StopListener = (() => void) | { handleEvent(): void };

/** The part of AbortSignal that tollgate's readers use. */
export interface StopSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  /** Calls `listener` once, when the signal stops (not if it already has). */
  addEventListener(type: "abort", listener: StopListener, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: StopListener): void;
}

/** A signal and its own switch: `abort` stops it once, with a reason. */
export class Stop implements StopSignal {
  #aborted = false;
  #reason: unknown = undefined;
  #listeners: StopListener[] | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }

  addEventListener(_type: "abort", listener: StopListener): void {
    if (!this.#aborted) (this.#listeners ??= []).push(listener);
  }

  removeEventListener(_type: "abort", listener: StopListener): void {
    const at = this.#listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.#listeners!.splice(at, 1);
  }

  /** Stops the signal with `reason` (an AbortError, as AbortController's, if none). */
  abort(reason: unknown = new DOMException("The operation was aborted.", "AbortError")): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    // Every listener hears it; the first one's failure is thrown once all have.
    let failure: { error: unknown } | undefined;
    for (const listener of listeners) {
      try {
        if (typeof listener === "function") listener();
        else listener.handleEvent();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
}
