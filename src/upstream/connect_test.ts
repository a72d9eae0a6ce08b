import assert from "node:assert/strict";
import { createConnectWatch, type Probe } from "./connect.ts";
import { UpstreamFailure } from "./call.ts";

Deno.test("connect: a burst of requests to a cold host shares one probe", async () => {
  let probes = 0;
  const connected = Promise.withResolvers<void>();
  const probe: Probe = () => {
    probes++;
    return connected.promise;
  };
  const watch = createConnectWatch(() => 0, probe);
  const waiting = Array.from(
    { length: 100 },
    () => watch.reachable("http://up.test:8080/v1", 60_000),
  );
  connected.resolve();
  await Promise.all(waiting);
  assert.equal(probes, 1);
  // Reached lately: no probe at all, and nothing to wait for.
  assert.equal(watch.reachable("http://up.test:8080/v1/messages", 60_000), undefined);
  assert.equal(probes, 1);
});

Deno.test("connect: the shared probe is given up once every waiter timed out", async () => {
  const aborted = Promise.withResolvers<unknown>();
  const probe: Probe = (_host, _port, signal) =>
    new Promise((_, reject) => {
      signal.addEventListener("abort", () => {
        aborted.resolve(signal.reason);
        reject(signal.reason);
      });
    });
  const watch = createConnectWatch(() => 0, probe);
  const results = await Promise.allSettled([
    watch.reachable("http://cold.test/v1", 1),
    watch.reachable("http://cold.test/v1", 1),
  ]);
  for (const result of results) {
    assert.equal(result.status, "rejected");
    assert.ok(result.status === "rejected" && result.reason instanceof UpstreamFailure);
    assert.equal(result.status === "rejected" && result.reason.kind, "timeout");
  }
  assert.ok((await aborted.promise) instanceof UpstreamFailure);
});
