import assert from "node:assert/strict";
import type { EntryProtocol } from "../../config/schema.ts";
import { CASES, decodeAllWith, transcripts } from "../chat/test_support.ts";
import type { StreamDecoder, StreamEncoder } from "../../translate/codec.ts";
import { protocolOf } from "../index.ts";
import { upstreamStreamError } from "../../translate/errors.ts";
import type { IrAssistantPart, IrRequest } from "../../translate/ir.ts";
import type { SseEvent } from "../../translate/sse.ts";
import { geminiCodec } from "./codec.ts";
import { finishOfReason, reasonOfFinish } from "./finish.ts";
import {
  answerContext,
  decodeAll,
  fixtureStream,
  foldEvents,
  geminiCliRequest,
  irRequest,
  requestContext,
} from "./test_support.ts";

/** The client's events for an upstream stream, as the relay's translation makes them. */
function relay(events: SseEvent[], decoder: StreamDecoder, encoder: StreamEncoder): SseEvent[] {
  const out: SseEvent[] = [];
  for (const event of events) {
    for (const ir of decoder.decode(event)) {
      if (ir.type === "error") {
        return [...out, ...encoder.error(upstreamStreamError(ir.error, protocolOf("chat")))];
      }
      out.push(...encoder.encode(ir));
    }
  }
  for (const ir of decoder.end()) out.push(...encoder.encode(ir));
  return [...out, ...encoder.end()];
}

for (const name of ["stream_tool_call.sse", "stream_text.sse", "stream_error.sse"]) {
  Deno.test(`gemini codec: ${name} from client request to client stream through the IR`, () => {
    const request = geminiCodec.decodeRequest(geminiCliRequest(), {
      model: "gemini-2.5-pro",
      stream: true,
    });
    const body = geminiCodec.encodeRequest(request, requestContext("gemini-2.5-pro"));
    assert.equal(body.stream, undefined, "a Gemini body says nothing of streaming: the path does");
    const out = relay(
      fixtureStream(name),
      geminiCodec.createStreamDecoder(),
      geminiCodec.createStreamEncoder(answerContext({ request })),
    );
    const upstream = foldEvents(decodeAll(fixtureStream(name)));
    const client = foldEvents(decodeAll(out));
    assert.deepEqual(client.parts, upstream.parts);
    assert.equal(client.finish, upstream.finish);
    if (name === "stream_error.sse") {
      assert.equal(client.error?.status, 502);
      assert.equal(JSON.parse(out.at(-1)!.data).error.details[0].metadata.request_id, "req_test");
    } else assert.deepEqual(client.usage, upstream.usage);
  });
}

Deno.test("gemini codec: Gemini CLI's request reaches every other protocol's channel", () => {
  const request = geminiCodec.decodeRequest(geminiCliRequest(), {
    model: "gemini-2.5-pro",
    stream: true,
  });
  const targets: EntryProtocol[] = ["chat", "responses", "messages"];
  for (const target of targets) {
    const context = requestContext(`${target}-model`);
    const body = protocolOf(target).encodeRequest(request, context);
    assert.equal(body.stream, true, target);
    assert.equal((body.tools as unknown[]).length, 8, target);
    assert.match(JSON.stringify(body), /What does main\.ts do\?/, target);
    assert.match(JSON.stringify(body), /interactive CLI agent/, target);
  }
  const messages = protocolOf("messages").encodeRequest(request, requestContext());
  assert.equal(messages.top_k, undefined, "dropped beside thinking, as Anthropic requires");
  assert.deepEqual(messages.thinking, { type: "enabled", budget_tokens: 4_095 });
});

Deno.test("gemini codec: a request round-trips IR -> Gemini -> IR", () => {
  const original: IrRequest = irRequest({
    model: "gemini-2.5-flash",
    stream: true,
    system: [{ type: "text", text: "Be brief." }],
    turns: [
      {
        role: "user",
        parts: [
          { type: "text", text: "Weather in this photo's city?" },
          { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBO" } },
          { type: "document", source: { kind: "url", url: "https://example.com/a.pdf" } },
        ],
      },
      {
        role: "assistant",
        parts: [
          { type: "text", text: "Checking." },
          { type: "tool_call", id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' },
          { type: "tool_call", id: "c2", name: "get_time", arguments: "{}" },
        ],
      },
      {
        role: "user",
        parts: [
          { type: "tool_result", callId: "c1", content: [{ type: "text", text: "18 C" }] },
          {
            type: "tool_result",
            callId: "c2",
            content: [{ type: "text", text: "no clock" }],
            isError: true,
          },
        ],
      },
    ],
    tools: [
      { kind: "function", name: "get_weather", parameters: { type: "object" }, strict: false },
      { kind: "function", name: "get_time", parameters: { type: "object" }, strict: false },
      { kind: "web_search" },
    ],
    toolChoice: { type: "tool", name: "get_weather" },
    maxOutputTokens: 900,
    temperature: 0.3,
    topP: 0.8,
    topK: 20,
    stop: ["END"],
    reasoning: { enabled: true, budgetTokens: 2048, effort: "low", summary: "auto" },
    output: { type: "json_schema", name: "response", schema: { type: "object" }, strict: false },
  });
  const body = geminiCodec.encodeRequest(original, requestContext());
  const back = geminiCodec.decodeRequest(JSON.parse(JSON.stringify(body)), {
    model: "gemini-2.5-flash",
    stream: true,
  });
  assert.deepEqual(back, {
    ...original,
    tools: original.tools.slice(0, 1).concat(original.tools[2]!),
  });
});

// Answers of the other protocols' upstreams, streamed to a Gemini client: what it reads
// back is what the upstream streamed, in the terms Gemini has. Refusals are text; opaque
// reasoning state rides in `thoughtSignature` and comes back whole; Gemini has no count of
// cache writes.
for (const protocol of ["chat", "responses", "messages"] as const) {
  const { fixtureStream: upstreamStream } = transcripts(protocol);
  for (const name of CASES) {
    Deno.test(`gemini codec: a ${protocol} upstream's ${name} stream for a Gemini client`, () => {
      const codec = protocolOf(protocol);
      const upstream = foldEvents(decodeAllWith(codec.createStreamDecoder(), upstreamStream(name)));
      const out = relay(
        upstreamStream(name),
        codec.createStreamDecoder(),
        geminiCodec.createStreamEncoder(answerContext()),
      );
      const client = foldEvents(decodeAll(out));
      assert.deepEqual(client.parts, inGeminiTerms(upstream.parts));
      if (upstream.error) {
        assert.ok(client.error);
        return;
      }
      const calls = upstream.parts.some((part) => part.type === "tool_call");
      assert.equal(client.finish, finishOfReason(reasonOfFinish(upstream.finish ?? "stop"), calls));
      assert.deepEqual(
        client.usage,
        upstream.usage && { ...upstream.usage, cache_write_tokens: 0 },
      );
    });
  }
}

function inGeminiTerms(parts: IrAssistantPart[]): IrAssistantPart[] {
  const out: IrAssistantPart[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if (part.type === "tool_call") out.push(part);
    else if (part.type === "reasoning") {
      if (!part.text && !part.opaque) continue;
      if (last?.type === "reasoning" && !last.opaque) {
        last.text += part.text;
        if (part.opaque) last.opaque = part.opaque;
      } else {
        out.push({
          type: "reasoning",
          text: part.text,
          ...(part.opaque ? { opaque: part.opaque } : {}),
        });
      }
    } else if (last?.type === "text") last.text += part.text;
    else if (part.text) out.push({ type: "text", text: part.text });
  }
  return out;
}
