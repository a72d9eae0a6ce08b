import assert from "node:assert/strict";
import { watchShutdown } from "./shutdown_watch.ts";

Deno.test("shutdown watch: the watching are told once when it is over, the unwatched are not", () => {
  const graceOver = new AbortController();
  const shutdown = watchShutdown(graceOver.signal);
  const told: string[] = [];
  shutdown.watch(() => told.push("a"));
  const unwatch = shutdown.watch(() => told.push("b"));
  shutdown.watch(() => told.push("c"));
  unwatch();
  assert.equal(shutdown.over, false);
  graceOver.abort();
  assert.equal(shutdown.over, true);
  assert.deepEqual(told, ["a", "c"]);
  // Later watchers are not called back: they read `over` instead.
  shutdown.watch(() => told.push("d"));
  assert.deepEqual(told, ["a", "c"]);
});
