/**
 * A request relayed to a channel of its own protocol changes only what its protocol's
 * passthrough changes: a body that names its model gets the channel's id for it, one whose
 * model lives in the path (Gemini's) goes as it came.
 */
import assert from "node:assert/strict";
import { protocolOf } from "../protocols/index.ts";
import type { ProtocolName } from "../protocols/types.ts";
import { createTranslator } from "./translator.ts";

const ENCODER = new TextEncoder();

function toward(name: ProtocolName, body: Record<string, unknown>, stream = false) {
  const protocol = protocolOf(name);
  const translator = createTranslator({
    entry: protocol,
    request: { model: "asked", stream, body },
    requestId: "req_1",
    defaultMaxOutputTokens: 100,
    reasoning: false,
    inputTokensHint: () => 0,
    now: () => 0,
    drop: () => {},
  });
  return translator.toward(protocol);
}

Deno.test("passthrough: a body that names its model gets the channel's id, in its own bytes", () => {
  const body = { model: "asked", messages: [{ role: "user", content: "hi" }], max_tokens: 5 };
  const raw = ENCODER.encode(JSON.stringify(body));
  const translation = toward("messages", body);
  assert.deepEqual(translation.upstreamBody("mapped"), { ...body, model: "mapped" });
  assert.deepEqual(
    JSON.parse(new TextDecoder().decode(translation.upstreamBytes("mapped", raw))),
    { ...body, model: "mapped" },
  );
  assert.equal(translation.upstreamBytes("asked", raw), raw, "unmapped: the client's bytes");
});

Deno.test("passthrough: a Gemini body, whose model is in the path, goes as it came", () => {
  const body = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };
  const raw = ENCODER.encode(JSON.stringify(body));
  const translation = toward("gemini", body, true);
  assert.equal(translation.upstreamBody("gemini-2.5-pro"), body);
  assert.equal(translation.upstreamBytes("gemini-2.5-pro", raw), raw);
  assert.equal("model" in translation.upstreamBody("gemini-2.5-pro"), false);
});

Deno.test("passthrough: a chat stream that did not ask for usage asks, and its usage chunk is hidden", () => {
  const body = { model: "asked", stream: true, messages: [{ role: "user", content: "hi" }] };
  const translation = toward("chat", body, true);
  assert.deepEqual(translation.upstreamBody("asked").stream_options, { include_usage: true });
  const usage = {
    data: JSON.stringify({
      id: "c",
      object: "chat.completion.chunk",
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }),
  };
  const text = {
    data: JSON.stringify({
      id: "c",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { content: "ok" } }],
      usage: null,
    }),
  };
  const converter = translation.stream("asked", false);
  assert.deepEqual(converter.events([text, usage]), [text]);
  assert.equal(converter.usage()?.input_tokens, 1, "the hidden chunk's usage is still read");
});
