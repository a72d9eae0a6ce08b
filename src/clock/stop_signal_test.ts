import assert from "node:assert/strict";
import { Stop } from "./stop_signal.ts";

Deno.test("stop signal: listeners hear the stop once, with its reason; a removed one does not", () => {
  const stop = new Stop();
  const heard: string[] = [];
  const object = { handleEvent: () => void heard.push(`object: ${stop.reason}`) };
  const removed = () => void heard.push("removed");
  stop.addEventListener("abort", () => heard.push(`function: ${stop.aborted}`));
  stop.addEventListener("abort", object);
  stop.addEventListener("abort", removed);
  stop.removeEventListener("abort", removed);
  assert.equal(stop.aborted, false);
  stop.throwIfAborted();

  stop.abort("gone");
  stop.abort("again");
  assert.deepEqual(heard, ["function: true", "object: gone"]);
  assert.equal(stop.reason, "gone");
  assert.throws(() => stop.throwIfAborted(), (error) => error === "gone");
  // A listener added after the stop is never called, as with AbortSignal.
  stop.addEventListener("abort", () => heard.push("late"));
  assert.deepEqual(heard, ["function: true", "object: gone"]);
});

Deno.test("stop signal: without a reason it stops with an AbortError, as AbortController does", () => {
  const stop = new Stop();
  stop.abort();
  assert.ok(stop.reason instanceof DOMException);
  assert.equal((stop.reason as DOMException).name, "AbortError");
});

Deno.test("stop signal: a listener that throws does not keep the others from hearing it", () => {
  const stop = new Stop();
  const heard: number[] = [];
  stop.addEventListener("abort", () => {
    throw new Error("first");
  });
  stop.addEventListener("abort", () => void heard.push(2));
  assert.throws(() => stop.abort("why"), /first/);
  assert.deepEqual(heard, [2]);
  assert.equal(stop.aborted, true);
});
