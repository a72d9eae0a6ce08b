import assert from "node:assert/strict";
import { formatReset, rateLimitHeaders } from "./headers.ts";

Deno.test("formatReset: OpenAI's (Go's) duration format", () => {
  const cases: [number, string][] = [
    [0, "0s"],
    [-5, "0s"],
    [0.2, "1ms"],
    [120, "120ms"],
    [1_000, "1s"],
    [17_500, "17.5s"],
    [59_123, "59.123s"],
    [60_000, "1m0s"],
    [360_000, "6m0s"],
    [61_250, "1m1.25s"],
  ];
  for (const [ms, text] of cases) assert.equal(formatReset(ms), text, `${ms} ms`);
});

Deno.test("rateLimitHeaders: the requests trio, the tokens trio, or none", () => {
  assert.equal(rateLimitHeaders(undefined, undefined), undefined);
  assert.deepEqual(
    rateLimitHeaders({ limit: 5, remaining: -1, resetMs: 2_000 }, {
      limit: 100,
      remaining: 40.5,
      resetMs: 500,
    }),
    {
      "x-ratelimit-limit-requests": "5",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "2s",
      "x-ratelimit-limit-tokens": "100",
      "x-ratelimit-remaining-tokens": "40",
      "x-ratelimit-reset-tokens": "500ms",
    },
  );
});
