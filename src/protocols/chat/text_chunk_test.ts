import assert from "node:assert/strict";
import fc from "fast-check";
import type { SseEvent } from "../../translate/sse.ts";
import type { IrEvent } from "../../translate/ir.ts";
import { createChatStreamDecoder } from "./stream_decode.ts";
import { FIELDS, textOfChunk } from "./text_chunk.ts";
import { trickyText } from "./test_support.ts";

const START = { id: "c1", model: "m", choices: [{ index: 0, delta: { role: "assistant" } }] };

/** The IR of a stream; `parsed` puts a space before each chunk, which only a parse accepts. */
function decodeAll(chunks: string[], parsed: boolean): IrEvent[] {
  const decoder = createChatStreamDecoder();
  const events: SseEvent[] = [JSON.stringify(START), ...chunks].map((data) => ({
    data: parsed ? ` ${data}` : data,
  }));
  return [...events.flatMap((event) => decoder.decode(event)), ...decoder.end()];
}

function assertSameAsParse(chunks: string[]): void {
  assert.deepEqual(decodeAll(chunks, false), decodeAll(chunks, true), chunks.join("\n"));
}

Deno.test("chat text chunk: the chunks of OpenAI, vLLM and OpenRouter are read without a parse", () => {
  const chunks = [
    {
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1754000000,
      model: "gpt-4.1-mini",
      service_tier: "default",
      system_fingerprint: "fp_6f2eabb9a5",
      choices: [{ index: 0, delta: { content: "The" }, logprobs: null, finish_reason: null }],
      usage: null,
      obfuscation: "k2",
    },
    {
      id: "chatcmpl-2",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      choices: [{
        index: 0,
        delta: { content: ' say "hi"\n' },
        logprobs: null,
        finish_reason: null,
        stop_reason: null,
      }],
    },
    {
      id: "gen-1",
      provider: "OpenAI",
      model: "openai/gpt-4o",
      object: "chat.completion.chunk",
      created: 1.5e9,
      choices: [{
        index: 0,
        delta: { role: "assistant", content: "é", reasoning: null, reasoning_details: [] },
        finish_reason: null,
        native_finish_reason: null,
        logprobs: null,
      }],
    },
  ];
  assert.deepEqual(chunks.map((chunk) => textOfChunk(JSON.stringify(chunk))), [
    "The",
    ' say "hi"\n',
    "é",
  ]);
  // Escapes as an upstream may write them, not only as JSON.stringify does.
  assert.equal(textOfChunk('{"choices":[{"delta":{"content":"caf\\u00E9 a\\/b"}}]}'), "café a/b");
});

Deno.test("chat text chunk: anything the decoder reads beside the text, or a doubt, is parsed", () => {
  const missed = [
    // Read fields with content: a finish, usage, an error, reasoning, tool calls, another choice.
    { choices: [{ index: 0, delta: { content: "a" }, finish_reason: "stop" }] },
    { choices: [{ index: 0, delta: { content: "a" } }], usage: { prompt_tokens: 1 } },
    { choices: [{ index: 0, delta: { content: "a" } }], error: { message: "x" } },
    { choices: [{ index: 0, delta: { content: "a", reasoning_content: "r" } }] },
    { choices: [{ index: 0, delta: { content: "a", tool_calls: [{ index: 0 }] } }] },
    { choices: [{ index: 1, delta: { content: "a" } }] },
    { choices: [{ index: 0, delta: { content: "a" } }, { index: 1, delta: {} }] },
    { choices: [{ index: 0, delta: { content: ["a"] } }] },
  ].map((chunk) => JSON.stringify(chunk));
  const written = [
    '{"choices": [{"delta":{"content":"a"}}]}',
    '{"choices":[{"delta":{"content":"a","content":null}}]}',
    '{"choices":[{"delta":{"content":"a"}}],"choices":[]}',
    '{"choices":[{"delta":{"cont\\u0065nt":"a"}}]}',
    '{"n":01,"choices":[{"delta":{"content":"a"}}]}',
    '{"choices":[{"delta":{"content":"bad \\x escape"}}]}',
    '{"choices":[{"delta":{"content":"raw \u0001 control"}}]}',
    '{"choices":[{"delta":{"content":"a"}}]',
  ];
  for (const data of [...missed, ...written]) {
    assert.equal(textOfChunk(data), undefined, data);
    assertSameAsParse([data]);
  }
});

const text = trickyText('"content":"x"');
const value = fc.oneof(
  fc.constantFrom(null, "", [], {}, 0, true),
  text,
  fc.constant([{ type: "text", text: "part" }]),
  fc.constant([{ index: 0, id: "call_1", function: { name: "f", arguments: '{"a":' } }]),
  fc.constant([{ type: "reasoning.text", text: "hm" }]),
);
/** The delta fields the decoder reads besides `content`. */
const READ = [
  "refusal",
  "reasoning_content",
  "reasoning",
  "reasoning_details",
  "tool_calls",
  "function_call",
] as const;
const empty = fc.constantFrom(null, "", []);
const deltaOf = (read: fc.Arbitrary<unknown>) =>
  fc.record({
    role: fc.constant("assistant"),
    content: fc.oneof(text, text, value),
    ...Object.fromEntries(READ.map((key) => [key, read])),
  }, { requiredKeys: ["content"] });
// Mostly deltas with nothing read beside the text (the chunks that skip the parse), or
// with one field that must not be missed.
const delta = fc.oneof(
  deltaOf(empty),
  fc.tuple(deltaOf(empty), fc.constantFrom(...READ), value).map(([d, key, v]) => ({
    ...d,
    [key]: v,
  })),
  deltaOf(value),
);
const choice = fc.record({
  index: fc.constantFrom(0, 0, 1),
  delta,
  logprobs: fc.constant(null),
  finish_reason: fc.constantFrom(null, null, null, "", "stop", "tool_calls"),
  stop_reason: fc.constantFrom(null, "###"),
}, { requiredKeys: ["delta"] });
const chunkOf = (choices: fc.Arbitrary<unknown[]>) =>
  fc.record({
    id: fc.constant("c1"),
    object: fc.constant("chat.completion.chunk"),
    model: fc.constant("m"),
    choices,
    usage: fc.constantFrom(null, null, { prompt_tokens: 3, completion_tokens: 2 }),
    error: fc.constantFrom(null, null, null, "boom", { message: "boom" }),
    obfuscation: text,
  }, { requiredKeys: ["choices"] });
const textChoice = fc.record({
  index: fc.constant(0),
  delta: deltaOf(empty),
  finish_reason: fc.constant(null),
}, { requiredKeys: ["delta"] });
const chunk = fc.oneof(
  chunkOf(fc.tuple(textChoice)),
  chunkOf(fc.oneof(fc.tuple(choice), fc.array(choice, { maxLength: 2 }))),
);

Deno.test("chat text chunk: a stream decodes to the same IR read without a parse as parsed", () => {
  fc.assert(
    fc.property(fc.array(chunk, { maxLength: 6 }), (chunks) => {
      assertSameAsParse(chunks.map((c) => JSON.stringify(c)));
    }),
    { numRuns: 2000 },
  );
});

// Raw string contents as a server might write them, valid or not: escapes, a lone backslash.
const written = fc.string({
  unit: fc.constantFrom("a", " ", '\\"', "\\\\", "\\n", "\\u00e9", "\\", '"', "\u0001", "é"),
});

Deno.test("chat text chunk: text as a server might write it, valid or not, reads as a parse does", () => {
  fc.assert(
    fc.property(chunk, fc.array(fc.oneof(written, chunk), { maxLength: 8 }), (layout, items) => {
      const first = layout.choices[0] as { delta?: Record<string, unknown> } | undefined;
      if (!first?.delta) return;
      first.delta.content = "\u2063mark\u2063";
      const parts = JSON.stringify(layout).split("\u2063mark\u2063");
      if (parts.length !== 2) return;
      const [head, tail] = parts;
      const chunks = items.map((item) =>
        typeof item === "string" ? `${head}${item}${tail}` : JSON.stringify(item)
      );
      assertSameAsParse(chunks);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("chat text chunk: a crafted chunk that fails late is refused", () => {
  const fields = (field: string) => field.repeat(30);
  const crafted = [
    `{${fields('"a":null,')}"choices":[{"delta":{"content":"x"}}],"x":}`,
    `{${fields('"usage":null,')}"choices":[{"delta":{"content":"x"}}],"x":}`,
    `{"choices":[{${fields('"index":0,')}"delta":{"content":"x"}}],"x":}`,
    `{"choices":[{"delta":{${fields('"role":null,')}"content":"x"}}],"x":}`,
    `{"choices":[{"delta":{${fields('"reasoning":null,')}"content":"x"}}],"x":}`,
  ];
  for (const data of crafted) assert.equal(textOfChunk(data), undefined, data);
});

// What keeps a crafted chunk that fails late from backtracking exponentially: each field
// the pattern skips has one way to match (one alternative at most), and the field it reads
// none, so a failure is found in one pass over the fields rather than one per way of
// splitting them.
const key = fc.oneof(
  fc.constantFrom(
    "choices",
    "usage",
    "error",
    "index",
    "delta",
    "finish_reason",
    "content",
    ...READ,
    "role",
    "cont\\u0065nt",
  ),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/),
);
const fieldValue = fc.oneof(fc.constantFrom(null, "", [], 0, 1, true, "stop"), fc.jsonValue());

Deno.test("chat text chunk: a field matches one of its object's alternatives at most, and the field read none", () => {
  const exactly = (source: string) => new RegExp(`^(?:${source})$`);
  const objects = [
    { alternatives: FIELDS.chunk.map(exactly), read: "choices" },
    { alternatives: FIELDS.choice.map(exactly), read: "delta" },
    { alternatives: FIELDS.delta.map(exactly), read: "content" },
  ];
  fc.assert(
    fc.property(key, fieldValue, (name, value) => {
      const field = `"${name}":${JSON.stringify(value)}`;
      for (const { alternatives, read } of objects) {
        const matched = alternatives.filter((alternative) => alternative.test(field)).length;
        assert.ok(matched <= (name === read ? 0 : 1), `${field}: ${matched} alternatives`);
      }
    }),
    { numRuns: 2000 },
  );
});
