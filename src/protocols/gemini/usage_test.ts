import assert from "node:assert/strict";
import { fixtureJson, fixtureStream } from "./test_support.ts";
import {
  createUsageTap,
  encodeUsage,
  readUsageMetadata,
  usageFromResponse,
  usageMetadataText,
} from "./usage.ts";
import type { Usage } from "../../usage.ts";

const CASES: { name: string; metadata: unknown; usage: Usage | undefined }[] = [
  {
    name: "prompt and candidates",
    metadata: { promptTokenCount: 12, candidatesTokenCount: 14, totalTokenCount: 26 },
    usage: { input_tokens: 12, output_tokens: 14, cached_tokens: 0, cache_write_tokens: 0 },
  },
  {
    name: "thoughts count as output, and as reasoning",
    metadata: {
      promptTokenCount: 9021,
      candidatesTokenCount: 31,
      thoughtsTokenCount: 131,
      totalTokenCount: 9183,
    },
    usage: {
      input_tokens: 9021,
      output_tokens: 162,
      cached_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 131,
    },
  },
  {
    name: "cached content is within the prompt count",
    metadata: { promptTokenCount: 9021, cachedContentTokenCount: 8102, candidatesTokenCount: 5 },
    usage: { input_tokens: 9021, output_tokens: 5, cached_tokens: 8102, cache_write_tokens: 0 },
  },
  {
    name: "tool-use prompt tokens are input",
    metadata: { promptTokenCount: 100, toolUsePromptTokenCount: 40, candidatesTokenCount: 9 },
    usage: { input_tokens: 140, output_tokens: 9, cached_tokens: 0, cache_write_tokens: 0 },
  },
  {
    name: "an early chunk's prompt and total",
    metadata: { promptTokenCount: 12, totalTokenCount: 15 },
    usage: { input_tokens: 12, output_tokens: 3, cached_tokens: 0, cache_write_tokens: 0 },
  },
  {
    name: "mistyped counts read as zero",
    metadata: { promptTokenCount: "12", candidatesTokenCount: -3 },
    usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cache_write_tokens: 0 },
  },
  { name: "no count at all", metadata: { promptTokensDetails: [] }, usage: undefined },
  { name: "not an object", metadata: [1], usage: undefined },
];

for (const c of CASES) {
  Deno.test(`gemini usage: ${c.name}`, () => {
    assert.deepEqual(readUsageMetadata(c.metadata), c.usage);
  });
}

Deno.test("gemini usage of a whole response", () => {
  assert.deepEqual(usageFromResponse(fixtureJson("response_tool_call.json")), {
    input_tokens: 9021,
    output_tokens: 162,
    cached_tokens: 8102,
    cache_write_tokens: 0,
    reasoning_tokens: 131,
  });
  assert.equal(usageFromResponse({ candidates: [] }), undefined);
});

Deno.test("gemini usage tap: every chunk says the counts so far, the last one wins", () => {
  const tap = createUsageTap();
  for (const event of fixtureStream("stream_tool_call.sse")) tap.observe(event);
  assert.deepEqual(tap.usage(), usageFromResponse(fixtureJson("response_tool_call.json")));
  const empty = createUsageTap();
  empty.observe({ data: '{"candidates": []}' });
  empty.observe({ data: "not json" });
  empty.observe({ data: '{"usageMetadata": {"promptTokenCount": 3' });
  assert.equal(empty.usage(), undefined);
});

Deno.test("usageMetadataText is the object's text, whatever strings around it hold", () => {
  const metadata = '{"promptTokenCount": 1, "promptTokensDetails": [{"modality": "TEXT"}]}';
  const cases: [string, string | undefined][] = [
    [`{"usageMetadata": ${metadata}, "x": 1}`, metadata],
    [
      `{"candidates": [{"content": {"parts": [{"text": "a } \\" {"}]}}], "usageMetadata":${metadata}}`,
      metadata,
    ],
    // The key inside a string is escaped, so it is no key.
    ['{"text": "\\"usageMetadata\\": {\\"a\\": 1}"}', undefined],
    ['{"usageMetadata": {"a": "}"}}', '{"a": "}"}'],
    ['{"usageMetadata": {"a": 1', undefined],
    ['{"usageMetadata": null}', undefined],
  ];
  for (const [data, expected] of cases) assert.equal(usageMetadataText(data), expected, data);
});

Deno.test("gemini encodeUsage writes thoughts apart from the candidates and round-trips", () => {
  const usage: Usage = {
    input_tokens: 9021,
    output_tokens: 162,
    cached_tokens: 8102,
    cache_write_tokens: 0,
    reasoning_tokens: 131,
  };
  assert.deepEqual(encodeUsage(usage), {
    promptTokenCount: 9021,
    candidatesTokenCount: 31,
    totalTokenCount: 9183,
    cachedContentTokenCount: 8102,
    thoughtsTokenCount: 131,
  });
  assert.deepEqual(readUsageMetadata(encodeUsage(usage)), usage);
  assert.deepEqual(
    encodeUsage({ input_tokens: 5, output_tokens: 2, cached_tokens: 0, cache_write_tokens: 1 }),
    { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
  );
});
