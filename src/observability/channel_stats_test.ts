import assert from "node:assert/strict";
import { createChannelStats, LATENCY_WINDOW } from "./channel_stats.ts";
import { createMetrics } from "./metrics.ts";
import { newRecord, type RequestRecord } from "./record.ts";

/** A finished request's record: served by `channel` (a first byte) unless `served` is false. */
function finished(
  channel: string | undefined,
  { served = true, outcome = "ok" as RequestRecord["outcome"] } = {},
): RequestRecord {
  const record = newRecord({
    requestId: "req",
    time: 0,
    method: "POST",
    path: "/v1/chat/completions",
  });
  record.channel = channel;
  record.outcome = outcome;
  if (served) record.firstByteMs = 1;
  return record;
}

Deno.test("channel stats: served requests, failed attempts, the median of recent durations, the last error", () => {
  let now = 1_000;
  const stats = createChannelStats(() => now);
  for (const ms of [30, 10, 20, 1000]) stats.requestFinished(finished("a"), ms);
  stats.attemptFailed("a", "status", "The upstream answered HTTP 500.");
  now = 2_000;
  stats.attemptFailed("b", "timeout");
  // Failed before answering: counted by its attempts already, not again.
  stats.requestFinished(finished("b", { served: false, outcome: "failed" }), 5);
  // Not the channel's doing: the client left, the gateway stops.
  stats.attemptFailed("b", "client_gone", "gone");
  stats.attemptFailed("b", "shutdown", "stopping");
  stats.requestFinished(finished(undefined), 5);
  assert.deepEqual(Object.fromEntries(stats.read()), {
    a: {
      requests: 5,
      errors: 1,
      p50Ms: 25,
      lastError: "The upstream answered HTTP 500.",
      lastErrorAt: 1_000,
    },
    b: {
      requests: 1,
      errors: 1,
      p50Ms: null,
      lastError: "An attempt failed (timeout).",
      lastErrorAt: 2_000,
    },
  });
  // A stream that failed after it started is the served channel's error.
  stats.requestFinished(finished("b", { outcome: "failed" }), 40);
  assert.deepEqual(
    [stats.read().get("b")!.errors, stats.read().get("b")!.requests, stats.read().get("b")!.p50Ms],
    [2, 2, 40],
  );
});

Deno.test("channel stats: the median is over the last LATENCY_WINDOW requests only", () => {
  const stats = createChannelStats();
  for (let i = 0; i < LATENCY_WINDOW; i++) stats.requestFinished(finished("a"), 1_000);
  assert.equal(stats.read().get("a")!.p50Ms, 1_000);
  for (let i = 0; i < LATENCY_WINDOW / 2 + 1; i++) stats.requestFinished(finished("a"), 10);
  assert.equal(stats.read().get("a")!.p50Ms, 10);
  assert.equal(stats.read().get("a")!.requests, LATENCY_WINDOW * 1.5 + 1);
});

Deno.test("the metrics feed the channel stats their failed attempts, with the message", () => {
  const metrics = createMetrics();
  metrics.attemptFailed("a", "network", "Connection refused.");
  assert.equal(metrics.channels.read().get("a")?.lastError, "Connection refused.");
});
