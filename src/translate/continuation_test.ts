/**
 * A stream cut mid-text, continued from another upstream: the client sees one answer,
 * its preamble once, the text without repeats, and one usage (the first input, all output).
 */
import assert from "node:assert/strict";
import { protocolOf } from "../protocols/index.ts";
import type { SseEvent } from "./sse.ts";
import type { EntryProtocol } from "../config/schema.ts";
import { createTranslator } from "./translator.ts";

const TOOLS_NONE = { model: "m", max_tokens: 100, stream: true };

function translatorFor(entry: EntryProtocol, body: Record<string, unknown>) {
  return createTranslator({
    entry: protocolOf(entry),
    request: protocolOf(entry).parseRequest(body, {}),
    requestId: "req_1",
    defaultMaxOutputTokens: 100,
    reasoning: false,
    inputTokensHint: () => 7,
    now: () => 1_700_000_000_000,
    drop: () => {},
    newId: (prefix) => `${prefix}new`,
  });
}

const messages = (type: string, fields: Record<string, unknown>): SseEvent => ({
  event: type,
  data: JSON.stringify({ type, ...fields }),
});
const chat = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}): SseEvent => ({
  data: JSON.stringify({
    id: "chatcmpl-up",
    object: "chat.completion.chunk",
    created: 1,
    model: "up",
    choices: [{ index: 0, delta, finish_reason: null }],
    ...extra,
  }),
});

/** An Anthropic stream that was cut after two pieces of text, the second ending in a space. */
const CUT_MESSAGES = [
  messages("message_start", {
    message: {
      id: "msg_upstream",
      type: "message",
      role: "assistant",
      model: "claude",
      content: [],
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  }),
  messages("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
  messages("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hello wor" } }),
  messages("content_block_delta", { index: 0, delta: { type: "text_delta", text: "ld. How " } }),
];

/** A chat completion stream that continues "Hello world. How" (it begins with the space). */
const CHAT_CONTINUATION = [
  chat({ role: "assistant", content: "" }),
  chat({ content: " are" }),
  chat({ content: " you?" }),
  { data: JSON.stringify({ id: "c", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) },
  {
    data: JSON.stringify({
      id: "c",
      choices: [],
      usage: { prompt_tokens: 14, completion_tokens: 3, total_tokens: 17 },
    }),
  },
  { data: "[DONE]" },
];

const textOfChat = (events: SseEvent[]) =>
  events.filter((event) => event.data !== "[DONE]")
    .map((event) => JSON.parse(event.data).choices?.[0]?.delta?.content ?? "").join("");

Deno.test("continuation: a translated stream goes on through the client's encoder, without repeating the space it showed", () => {
  const translator = translatorFor("chat", {
    ...TOOLS_NONE,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "hi" }],
  });
  const converter = translator.toward(protocolOf("messages")).stream("claude", true);
  const before = converter.events(CUT_MESSAGES);
  const resumed = converter.resume()!;
  const text = resumed.transcript.continuable()!;
  assert.equal(text, "Hello world. How ");
  const prefill = text.trimEnd();
  const body = translator.prefilled(protocolOf("chat"), "gpt", prefill, 40);
  const sent = body.messages as { role: string; content: unknown }[];
  assert.deepEqual(sent.at(-1), { role: "assistant", content: "Hello world. How" });
  assert.equal(body.max_tokens ?? body.max_completion_tokens, 40);

  const continued = translator.continued(protocolOf("chat"), resumed, text.slice(prefill.length), {
    input: { input_tokens: 10, output_tokens: 0, cached_tokens: 0, cache_write_tokens: 0 },
    outputTokens: 4,
  });
  const after = [...continued.events(CHAT_CONTINUATION), ...continued.end()];
  const all = [...before, ...after];
  assert.equal(textOfChat(all), "Hello world. How are you?");
  assert.equal(all.filter((event) => event.data.includes('"role":"assistant"')).length, 1);
  assert.equal(after.at(-1)!.data, "[DONE]");
  const usage = JSON.parse(after.at(-2)!.data).usage;
  assert.deepEqual(
    [usage.prompt_tokens, usage.completion_tokens],
    [10, 4 + 3],
    "the first call's input once, the output of both",
  );
  assert.deepEqual(continued.upstreamUsage(), {
    input_tokens: 14,
    output_tokens: 3,
    cached_tokens: 0,
    cache_write_tokens: 0,
  }, "the rescue is billed by its own report");
});

Deno.test("continuation: a same-protocol stream is continued by an encoder brought to where the client is", () => {
  const translator = translatorFor("messages", {
    ...TOOLS_NONE,
    messages: [{ role: "user", content: "hi" }],
  });
  const converter = translator.toward(protocolOf("messages")).stream("claude", true);
  assert.equal(converter.events(CUT_MESSAGES), CUT_MESSAGES, "passed through as it came");
  const resumed = converter.resume()!;
  const continued = translator.continued(protocolOf("chat"), resumed, " ", {
    input: { input_tokens: 10, output_tokens: 0, cached_tokens: 0, cache_write_tokens: 0 },
    outputTokens: 4,
  });
  const after = [...continued.events(CHAT_CONTINUATION), ...continued.end()];
  assert.deepEqual(after.map((event) => event.event), [
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  const deltas = after.filter((event) => event.event === "content_block_delta")
    .map((event) => JSON.parse(event.data));
  assert.deepEqual(deltas.map((delta) => [delta.index, delta.delta.text]), [[0, "are"], [
    0,
    " you?",
  ]]);
  const final = JSON.parse(after[3]!.data);
  assert.equal(final.delta.stop_reason, "end_turn");
  assert.equal(final.usage.output_tokens, 7);
});

Deno.test("continuation: a cut inside a tool call or before any text is not continued", () => {
  const translator = translatorFor("messages", {
    ...TOOLS_NONE,
    messages: [{ role: "user", content: "hi" }],
  });
  const toolCut = translator.toward(protocolOf("messages")).stream("claude", true);
  toolCut.events([
    CUT_MESSAGES[0]!,
    messages("content_block_start", {
      index: 0,
      content_block: { type: "tool_use", id: "toolu_1", name: "f", input: {} },
    }),
    messages("content_block_delta", {
      index: 0,
      delta: { type: "input_json_delta", partial_json: '{"a":' },
    }),
  ]);
  assert.equal(toolCut.resume()!.transcript.continuable(), undefined);
  const silent = translator.toward(protocolOf("messages")).stream("claude", true);
  silent.events(CUT_MESSAGES.slice(0, 2));
  assert.equal(silent.resume()!.transcript.continuable(), undefined, "no text to continue");
  const untracked = translator.toward(protocolOf("messages")).stream("claude", false);
  untracked.events(CUT_MESSAGES);
  assert.equal(
    untracked.resume(),
    undefined,
    "a stream no rescue may continue keeps no transcript",
  );
});
