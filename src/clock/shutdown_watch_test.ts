import assert from "node:assert/strict";
import { watchShutdown } from "./shutdown_watch.ts";

Deno.test("shutdown watch: the watching are told once when it is over, the unwatched are not", () => {
  const graceOver = new AbortController();
  const shutdown = watchShutdown(graceOver.signal);
  const told: string[] = [];
  const listener = (name: string) => ({ shutdownOver: () => void told.push(name) });
  const [a, b, c, d] = ["a", "b", "c", "d"].map(listener);
  shutdown.watch(a!);
  shutdown.watch(b!);
  shutdown.watch(c!);
  shutdown.unwatch(b!);
  assert.equal(shutdown.over, false);
  graceOver.abort();
  assert.equal(shutdown.over, true);
  assert.deepEqual(told, ["a", "c"]);
  // Later watchers are not called back: they read `over` instead.
  shutdown.watch(d!);
  assert.deepEqual(told, ["a", "c"]);
});
