/** What follows a failed attempt: the same attempt again, the next one, a longer model, or the end. */
import assert from "node:assert/strict";
import { parseConfig } from "../config/schema.ts";
import { UpstreamFailure } from "../upstream/call.ts";
import { judge } from "./verdict.ts";

const { failover } = parseConfig({});
const fresh = { retries: 0, waited: false, leftMs: 900_000, callsLeft: 5 };
const status = (
  code: number,
  extra: Partial<ConstructorParameters<typeof UpstreamFailure>[2]> = {},
) => new UpstreamFailure("status", `HTTP ${code}`, { status: code, ...extra });
const verdictOf = (failure: UpstreamFailure, history = fresh) =>
  judge(failure, history, failover, 0, () => 0.5);

Deno.test("verdict: a 5xx, a reset or a timeout is tried once more on its channel after a jittered pause", () => {
  for (
    const failure of [
      status(500),
      status(503),
      new UpstreamFailure("network", "reset"),
      new UpstreamFailure("timeout", "no headers"),
    ]
  ) {
    const again = verdictOf(failure);
    assert.equal(again.kind, "again");
    assert.ok(again.kind === "again" && again.pauseMs >= 250 && again.pauseMs <= 1_000);
    // Once retried, the channel's next failure moves on.
    assert.deepEqual(verdictOf(failure, { ...fresh, retries: 1 }), {
      kind: "next",
      failure: "channel_failed",
    });
  }
});

Deno.test("verdict: a short Retry-After is waited out once on the same key; a long one fails over at once", () => {
  assert.deepEqual(verdictOf(status(429, { retryAfter: "2" })), { kind: "again", pauseMs: 2_000 });
  assert.deepEqual(verdictOf(status(503, { retryAfter: "1" })), { kind: "again", pauseMs: 1_000 });
  assert.deepEqual(verdictOf(status(429, { retryAfter: "2" }), { ...fresh, waited: true }), {
    kind: "next",
    failure: "key_limited",
    retryAfterMs: 2_000,
  });
  assert.deepEqual(verdictOf(status(429, { retryAfter: "30" })), {
    kind: "next",
    failure: "key_limited",
    retryAfterMs: 30_000,
  });
  assert.deepEqual(verdictOf(status(429)), {
    kind: "next",
    failure: "key_limited",
    retryAfterMs: undefined,
  });
  // Not past the request's total time, nor its number of calls.
  assert.equal(
    verdictOf(status(429, { retryAfter: "2" }), { ...fresh, leftMs: 1_500 }).kind,
    "next",
  );
  assert.equal(verdictOf(status(500), { ...fresh, callsLeft: 0 }).kind, "next");
});

Deno.test("verdict: the client's own faults end the request; a context-length 400 goes to a longer model", () => {
  for (const code of [400, 404, 413, 422]) assert.equal(verdictOf(status(code)).kind, "stop");
  assert.equal(
    verdictOf(status(400, { upstreamMessage: "Output blocked by content filtering policy" })).kind,
    "stop",
  );
  assert.equal(verdictOf(status(400, { upstreamCode: "context_length_exceeded" })).kind, "longer");
  assert.equal(
    verdictOf(
      status(400, { upstreamMessage: "prompt is too long: 210384 tokens > 200000 maximum" }),
    )
      .kind,
    "longer",
  );
  assert.equal(verdictOf(new UpstreamFailure("client_gone", "gone")).kind, "stop");
  assert.deepEqual(verdictOf(status(401)), { kind: "next", failure: "key_rejected" });
});
