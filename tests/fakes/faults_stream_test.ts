/**
 * The fake's stream faults, once per protocol, read raw as a client would: a slow first
 * content, an error event, an empty answer, a cut, a stall, a malformed frame and a
 * missing terminator, each placed by the frames' kinds (preamble, content, closing).
 */
import assert from "node:assert/strict";
import type { Behaviour, WireProtocol } from "./behaviour.ts";
import {
  frameData,
  frameNames,
  FrameReader,
  frameText,
  post,
  PROTOCOLS,
  requestBody,
  withFake,
} from "./fake_client.ts";
import { emptyAnswer } from "./faults.ts";
import { type FakeUpstream, startFakeUpstream } from "./upstream.ts";

const ANSWER = "one two three four";
const start = () => startFakeUpstream({ name: "f", behaviour: { answer: ANSWER } });

/** Each protocol's frames by kind, by name (`content` frames: one per word of ANSWER). */
const SHAPE: Record<WireProtocol, Record<"preamble" | "structure" | "closing", string[]>> = {
  chat: { preamble: ["role"], structure: [], closing: ["finish", "[DONE]"] },
  responses: {
    preamble: [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ],
    structure: [
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
    ],
    closing: ["response.completed"],
  },
  messages: {
    preamble: ["message_start", "content_block_start", "ping"],
    structure: ["content_block_stop"],
    closing: ["message_delta", "message_stop"],
  },
};
const DELTA = {
  chat: "content",
  responses: "response.output_text.delta",
  messages: "content_block_delta",
};

/** Starts a stream of `protocol` under `behaviour` and returns its raw reader. */
async function stream(fake: FakeUpstream, protocol: WireProtocol, behaviour: Behaviour) {
  fake.setBehaviour({ answer: ANSWER, ...behaviour });
  const response = await post(fake, protocol, requestBody(protocol, "hi", { stream: true }));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
  return new FrameReader(response.body!);
}

for (const protocol of PROTOCOLS) {
  const shape = SHAPE[protocol];
  const deltas = (count: number) => Array<string>(count).fill(DELTA[protocol]);
  const whole = [...shape.preamble, ...deltas(4), ...shape.structure, ...shape.closing];

  Deno.test(`fault ${protocol}: slow first content: the preamble, then a stall until release()`, () =>
    withFake(start, async (fake) => {
      const reader = await stream(fake, protocol, { stall: { after: "preamble" } });
      await fake.stalled;
      // Nothing else can come while the fake waits: exactly the preamble arrived.
      assert.deepEqual(frameNames(await reader.take(shape.preamble.length)), shape.preamble);
      fake.release();
      const { frames, error, tail } = await reader.rest();
      assert.deepEqual([error, tail], [undefined, ""]);
      assert.deepEqual(frameNames(frames), whole);
      assert.equal(frameText(frames), ANSWER);
    }));

  Deno.test(`fault ${protocol}: the preamble, then the protocol's error event, then the end`, () =>
    withFake(start, async (fake) => {
      const reader = await stream(fake, protocol, { streamError: {} });
      const { frames, error } = await reader.rest();
      assert.equal(error, undefined);
      assert.deepEqual(frameNames(frames), [...shape.preamble, "error"]);
      const server = "The server had an error while processing your request. Sorry about that!";
      const expected = {
        chat: `data: {"error":{"message":"${server}","type":"server_error","param":null,` +
          `"code":null}}\n\n`,
        responses: `event: error\ndata: {"type":"error","sequence_number":4,` +
          `"code":"server_error","message":"${server}","param":null}\n\n`,
        messages: `event: error\ndata: {"type":"error","error":{"type":"overloaded_error",` +
          `"message":"Overloaded"}}\n\n`,
      };
      assert.equal(frames.at(-1), expected[protocol]);
      if (protocol !== "responses") return;
      const failed = await stream(fake, protocol, { streamError: { event: "response.failed" } });
      const rest = await failed.rest();
      assert.deepEqual(frameNames(rest.frames), [...shape.preamble, "response.failed"]);
      const data = frameData(rest.frames.at(-1)!) as { response: Record<string, unknown> };
      assert.equal(data.response.status, "failed");
      assert.deepEqual(data.response.error, { code: "server_error", message: server });
    }));

  Deno.test(`fault ${protocol}: an empty answer, properly ended, streamed and whole`, () =>
    withFake(start, async (fake) => {
      const reader = await stream(fake, protocol, { ...emptyAnswer(), answer: undefined });
      const { frames, error } = await reader.rest();
      assert.equal(error, undefined);
      const empty = {
        chat: ["role", "finish", "[DONE]"],
        responses: [...shape.preamble, ...shape.structure, ...shape.closing],
        messages: ["message_start", "ping", ...shape.closing],
      };
      assert.deepEqual(frameNames(frames), empty[protocol]);
      fake.setBehaviour(emptyAnswer());
      const body = await (await post(fake, protocol, requestBody(protocol, "hi"))).json();
      const content = {
        chat: () => body.choices[0].message.content,
        responses: () => body.output[0].content[0].text,
        messages: () => body.content,
      };
      assert.deepEqual(content[protocol](), protocol === "messages" ? [] : "");
    }));

  Deno.test(`fault ${protocol}: cut after 2 content deltas, streamed; cut mid-body, whole`, () =>
    withFake(start, async (fake) => {
      const reader = await stream(fake, protocol, { cut: { after: 2 } });
      const { frames, error, tail } = await reader.rest();
      assert.ok(error instanceof Error, "the body ends in an error, not cleanly");
      assert.equal(tail, "");
      assert.deepEqual(frameNames(frames), [...shape.preamble, ...deltas(2)]);
      assert.equal(frameText(frames), "one two ");
      await fake.reached("cut");
      const response = await post(fake, protocol, requestBody(protocol, "hi"));
      assert.equal(response.status, 200);
      await assert.rejects(response.text());
    }));

  Deno.test(`fault ${protocol}: stall after 2 content deltas until its gate opens`, () =>
    withFake(start, async (fake) => {
      const gate = Promise.withResolvers<void>();
      const reader = await stream(fake, protocol, { stall: { after: 2, gate: gate.promise } });
      await fake.stalled;
      const sent = await reader.take(shape.preamble.length + 2);
      assert.deepEqual(frameNames(sent), [...shape.preamble, ...deltas(2)]);
      gate.resolve();
      const { frames, error } = await reader.rest();
      assert.equal(error, undefined);
      assert.deepEqual(frameNames(frames), whole);
    }));

  Deno.test(`fault ${protocol}: a malformed frame after 2 deltas, then more or the end`, () =>
    withFake(start, async (fake) => {
      const malformed = `${protocol === "chat" ? "" : DELTA[protocol]}!malformed`;
      const reader = await stream(fake, protocol, { malformed: { after: 2, then: "continue" } });
      const { frames, error } = await reader.rest();
      assert.equal(error, undefined);
      const names = [...shape.preamble, ...deltas(2), malformed, ...deltas(2)];
      assert.deepEqual(frameNames(frames), [...names, ...shape.structure, ...shape.closing]);
      // The bad frame is the next delta's data cut short.
      const [bad, next] = frames.slice(shape.preamble.length + 2).map(frameData) as string[];
      assert.ok(JSON.stringify(next).startsWith(bad!), `${bad} starts ${JSON.stringify(next)}`);
      assert.equal(frameText(frames), ANSWER);

      const ended = await stream(fake, protocol, { malformed: { after: 2, then: "end" } });
      const rest = await ended.rest();
      assert.equal(rest.error, undefined);
      assert.deepEqual(frameNames(rest.frames), [...shape.preamble, ...deltas(2), malformed]);

      const response = await post(fake, protocol, requestBody(protocol, "hi"));
      const text = await response.text();
      assert.equal(response.status, 200);
      assert.throws(() => JSON.parse(text));
      assert.match(text, /^\{"(id|type)":/);
    }));

  Deno.test(`fault ${protocol}: no terminator, after all content or after 1 delta`, () =>
    withFake(start, async (fake) => {
      const reader = await stream(fake, protocol, { noTerminator: {} });
      const { frames, error } = await reader.rest();
      assert.equal(error, undefined);
      assert.deepEqual(frameNames(frames), [...shape.preamble, ...deltas(4), ...shape.structure]);
      const early = await (await stream(fake, protocol, { noTerminator: { after: 1 } })).rest();
      assert.deepEqual(frameNames(early.frames), [...shape.preamble, ...deltas(1)]);
    }));
}

/** The raw bytes of a chat stream's answer, to the connection's end. */
async function rawChatStream(fake: FakeUpstream): Promise<string> {
  const { port } = new URL(fake.url);
  const connection = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
  const body = JSON.stringify(requestBody("chat", "hi", { stream: true }));
  const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}`;
  await connection.write(new TextEncoder().encode(`${head}\r\n\r\n${body}`));
  return await new Response(connection.readable).text();
}

Deno.test("fault: a cut leaves the chunked body unterminated; a missing terminator does not", () =>
  withFake(start, async (fake) => {
    fake.setBehaviour({ answer: ANSWER, cut: { after: 1 } });
    const cut = await rawChatStream(fake);
    assert.match(cut, /\r\ntransfer-encoding: chunked\r\n/);
    assert.match(cut, /"content":"one "/);
    assert.ok(!cut.endsWith("0\r\n\r\n"), cut.slice(-40));
    fake.setBehaviour({ answer: ANSWER, noTerminator: { after: 1 } });
    const ended = await rawChatStream(fake);
    assert.ok(ended.endsWith("\r\n0\r\n\r\n"), ended.slice(-40));
    assert.ok(!ended.includes("[DONE]"));
  }));

Deno.test("fault: a whole answer stalls after half its body; close() aborts a stall", () =>
  withFake(start, async (fake) => {
    fake.setBehaviour({ answer: ANSWER, stall: { after: 0 } });
    const response = await post(fake, "messages", requestBody("messages", "hi"));
    assert.equal(response.status, 200);
    await fake.stalled;
    fake.release();
    assert.equal((await response.json()).content[0].text, ANSWER);

    const reader = await stream(fake, "chat", { stall: { after: 1 } });
    await fake.reached("stall", 2);
    await reader.take(2);
    await fake.close();
    assert.ok((await reader.rest()).error instanceof Error);
  }));
