import assert from "node:assert/strict";
import { GatewayError } from "../../errors.ts";
import { geminiErrorBody, statusName, streamError, streamErrorEvents } from "./errors.ts";
import { fixtureStream } from "./test_support.ts";

// design.md's catalogue, each status with Google's name for it.
const CATALOGUE: [number, string, string][] = [
  [400, "invalid_request", "INVALID_ARGUMENT"],
  [401, "authentication_error", "UNAUTHENTICATED"],
  [403, "budget_exceeded", "PERMISSION_DENIED"],
  [404, "not_found", "NOT_FOUND"],
  [405, "method_not_allowed", "FAILED_PRECONDITION"],
  [408, "request_timeout", "DEADLINE_EXCEEDED"],
  [413, "request_too_large", "INVALID_ARGUMENT"],
  [429, "rate_limit_exceeded", "RESOURCE_EXHAUSTED"],
  [500, "gateway_error", "INTERNAL"],
  [502, "upstream_error", "UNAVAILABLE"],
  [503, "channel:no_available_key", "UNAVAILABLE"],
  [504, "upstream_timeout", "DEADLINE_EXCEEDED"],
  [529, "overloaded_error", "UNAVAILABLE"],
];

for (const [status, code, name] of CATALOGUE) {
  Deno.test(`gemini error body: ${status} ${code} is ${name}`, () => {
    const error = new GatewayError(status, code, "What failed and what to do.");
    assert.equal(statusName(status), name);
    assert.deepEqual(geminiErrorBody(error, "req_1"), {
      error: {
        code: status,
        message: "What failed and what to do.",
        status: name,
        details: [{
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: code,
          domain: "tollgate",
          metadata: { request_id: "req_1" },
        }],
      },
    });
  });
}

Deno.test("gemini error body: the field at fault, and how long to wait (RetryInfo)", () => {
  const invalid = new GatewayError(400, "invalid_request", "Invalid request.", {
    param: "contents[0].parts",
  });
  const info = (geminiErrorBody(invalid, "r") as { error: { details: { metadata: unknown }[] } })
    .error.details[0]!;
  assert.deepEqual(info.metadata, { request_id: "r", param: "contents[0].parts" });
  const limited = new GatewayError(429, "rate_limit_exceeded", "Slow down.", {
    headers: { "Retry-After": "7", "x-ratelimit-limit-requests": "60" },
  });
  const details = (geminiErrorBody(limited, "r") as { error: { details: unknown[] } }).error
    .details;
  assert.deepEqual(details[1], {
    "@type": "type.googleapis.com/google.rpc.RetryInfo",
    retryDelay: "7s",
  });
});

Deno.test("gemini stream error: one plain data line the SDK raises (numeric code), read back", () => {
  const error = new GatewayError(502, "upstream_error", "The upstream stream failed.");
  const events = streamErrorEvents(error, "req_1");
  assert.equal(events.length, 1);
  assert.equal(events[0]!.event, undefined, "no event name: Google sends none");
  const body = JSON.parse(events[0]!.data);
  assert.equal(typeof body.error.code, "number");
  assert.deepEqual(streamError(events[0]!), {
    status: 502,
    type: "UNAVAILABLE",
    message: "The upstream stream failed.",
  });
});

Deno.test("gemini stream error: an upstream's error chunk, by code or by status name", () => {
  const [, overloaded] = fixtureStream("stream_error.sse");
  assert.deepEqual(streamError(overloaded!), {
    status: 503,
    type: "UNAVAILABLE",
    message: "The model is overloaded. Please try again later.",
  });
  assert.deepEqual(streamError({ data: '{"error": {"status": "RESOURCE_EXHAUSTED"}}' }), {
    status: 429,
    type: "RESOURCE_EXHAUSTED",
    message: undefined,
  });
  assert.deepEqual(streamError({ data: '{"error": {"code": "x", "status": "WHAT"}}' }), {
    status: 500,
    type: "WHAT",
    message: undefined,
  });
  assert.equal(
    streamError({ data: '{"candidates": [{"content": {"parts": [{"text": "error"}]}}]}' }),
    undefined,
  );
  assert.equal(streamError({ data: '{"error": null}' }), undefined);
  assert.equal(streamError({ data: '"error"' }), undefined);
});
