/**
 * Stored responses through the official OpenAI SDK, on a channel of each protocol:
 * `previous_response_id` and `item_reference` resolved from the store and sent to the
 * channel in its own protocol, `retrieve`, `delete` and `inputItems.list`, ownership
 * across accounts, and `store: false`.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import type { FakeReply } from "./fakes/reply.ts";
import type { RecordedRequest } from "./fakes/upstream.ts";
import { channel } from "./harness.ts";
import { gatewayWithKey, openaiClient, type Scope, withScope } from "./support.ts";

type Upstream = "chat" | "responses" | "messages";
const UPSTREAMS: Upstream[] = ["chat", "messages", "responses"];

/** A gateway whose model `m` has one channel of `upstream` to a fake named `up`. */
async function storing(s: Scope, upstream: Upstream, replies?: FakeReply[]) {
  const fake = await s.fake({ name: "up", behaviour: replies ? { replies } : {} });
  const started = await gatewayWithKey(
    s,
    channel({ name: "up", protocol: upstream, models: ["m"], baseUrl: fake.url }),
  );
  return { fake, client: openaiClient(started.gateway, started.secret), ...started };
}

/** One turn, whole or streamed; the final response either way. */
async function turn(
  client: OpenAI,
  stream: boolean,
  params: Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, "model" | "stream">,
): Promise<OpenAI.Responses.Response> {
  if (!stream) return await client.responses.create({ model: "m", ...params });
  return await client.responses.stream({ model: "m", ...params }).finalResponse();
}

/** Every text the upstream was sent, in order, whatever its protocol. */
function sentTexts(request: RecordedRequest): string[] {
  const texts: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        if (["model", "type", "role", "id", "call_id", "status", "name"].includes(key)) continue;
        walk(inner);
      }
    }
  };
  const body = request.body as Record<string, unknown>;
  walk(body.messages ?? body.input);
  return texts;
}

for (const upstream of UPSTREAMS) {
  for (const stream of [false, true]) {
    const how = stream ? "streamed" : "whole";
    Deno.test(`stored responses: a conversation on a ${upstream} channel, ${how}`, () =>
      withScope(async (s) => {
        const { fake, client } = await storing(s, upstream);
        const first = await turn(client, stream, { input: "first question" });
        assert.equal(first.output_text, "fake:up says first question");
        const second = await turn(client, stream, {
          input: "second question",
          previous_response_id: first.id,
        });
        assert.equal(second.output_text, "fake:up says second question");
        // The channel was sent the whole conversation, in its own protocol.
        assert.deepEqual(sentTexts(fake.requests.at(-1)!), [
          "first question",
          "fake:up says first question",
          "second question",
        ]);
        assert.equal(
          (fake.requests.at(-1)!.body as Record<string, unknown>).previous_response_id,
          undefined,
          "the channel is never asked for an id it does not hold",
        );
        const third = await turn(client, stream, {
          input: "third",
          previous_response_id: second.id,
        });
        assert.deepEqual(sentTexts(fake.requests.at(-1)!).length, 5);

        const retrieved = await client.responses.retrieve(second.id);
        assert.equal(retrieved.id, second.id);
        assert.equal(retrieved.output_text, "fake:up says second question");
        const items = [];
        for await (const item of client.responses.inputItems.list(third.id, { limit: 2 })) {
          items.push(item);
        }
        // Newest first, across pages of two: the whole conversation before the third answer.
        assert.equal(items.length, 5);
        assert.ok(items.every((item) => typeof item.id === "string" && item.id !== ""));
        const texts = items.map((item) => JSON.stringify(item));
        assert.match(texts[0]!, /"third"/);
        assert.match(texts[4]!, /first question/);
        const ascending = await client.responses.inputItems.list(third.id, { order: "asc" });
        assert.match(JSON.stringify(ascending.data[0]), /first question/);

        await client.responses.delete(first.id);
        await assert.rejects(client.responses.retrieve(first.id), { status: 404 });
        await assert.rejects(
          turn(client, stream, { input: "again", previous_response_id: first.id }),
          (error: InstanceType<typeof OpenAI.APIError>) => {
            assert.equal(error.status, 400);
            assert.equal(error.code, "previous_response_not_found");
            assert.equal(error.param, "previous_response_id");
            return true;
          },
        );
        // The later responses hold the conversation whole: deleting the first breaks no chain.
        const fourth = await turn(client, stream, { input: "4", previous_response_id: third.id });
        assert.equal(fourth.output_text, "fake:up says 4");
      }));
  }

  Deno.test(`stored responses: a tool call and its output are paired on a ${upstream} channel`, () =>
    withScope(async (s) => {
      const call = { id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' };
      const { fake, client } = await storing(s, upstream, [
        { text: "", toolCalls: [call] },
        { text: "It is sunny." },
      ]);
      const tools: OpenAI.Responses.Tool[] = [{
        type: "function",
        name: "get_weather",
        parameters: { type: "object", properties: { city: { type: "string" } } },
        strict: false,
      }];
      const asked = await client.responses.create({ model: "m", input: "weather?", tools });
      const asks = asked.output.filter((item) => item.type === "function_call");
      assert.equal(asks.length, 1);
      const answered = await client.responses.create({
        model: "m",
        tools,
        previous_response_id: asked.id,
        input: [{ type: "function_call_output", call_id: asks[0]!.call_id, output: "sunny" }],
      });
      assert.equal(answered.output_text, "It is sunny.");
      const sent = JSON.stringify(fake.requests.at(-1)!.body);
      assert.ok(sent.includes("get_weather") && sent.includes("sunny"), sent);
      assert.ok(sent.indexOf("get_weather") < sent.indexOf("sunny"), "the call before its output");
    }));
}

Deno.test("stored responses: item_reference as the Vercel AI SDK sends it", () =>
  withScope(async (s) => {
    const { fake, client } = await storing(s, "chat");
    const first = await client.responses.create({ model: "m", input: "what is 2+2?" });
    const message = first.output.find((item) => item.type === "message")!;
    // The AI SDK's responses provider replays its earlier output as references to it.
    const next = await client.responses.create({
      model: "m",
      input: [
        { role: "user", content: [{ type: "input_text", text: "what is 2+2?" }] },
        { type: "item_reference", id: message.id },
        { role: "user", content: [{ type: "input_text", text: "and 3+3?" }] },
      ],
    });
    assert.equal(next.output_text, "fake:up says and 3+3?");
    assert.deepEqual(sentTexts(fake.requests.at(-1)!), [
      "what is 2+2?",
      "fake:up says what is 2+2?",
      "and 3+3?",
    ]);
    await assert.rejects(
      client.responses.create({
        model: "m",
        input: [{ type: "item_reference", id: "msg_unknown" }],
      }),
      (error: InstanceType<typeof OpenAI.APIError>) =>
        error.status === 400 && error.param === "input[0].id",
    );
  }));

Deno.test("stored responses: another account's response is not found, to read or to continue", () =>
  withScope(async (s) => {
    const { gateway, client } = await storing(s, "chat");
    const mine = await client.responses.create({ model: "m", input: "private" });
    const other = openaiClient(gateway, (await gateway.createKey()).secret);
    await assert.rejects(other.responses.retrieve(mine.id), { status: 404 });
    await assert.rejects(other.responses.inputItems.list(mine.id), { status: 404 });
    await assert.rejects(other.responses.delete(mine.id), { status: 404 });
    await assert.rejects(
      other.responses.create({ model: "m", input: "x", previous_response_id: mine.id }),
      (error: InstanceType<typeof OpenAI.APIError>) => error.code === "previous_response_not_found",
    );
    // Still the owner's.
    assert.equal((await client.responses.retrieve(mine.id)).id, mine.id);
  }));

Deno.test("stored responses: answers kept together are each found at once, to read and to continue", () =>
  withScope(async (s) => {
    const { client } = await storing(s, "chat");
    // Concurrent answers, whole and streamed, share their commits (group commit): each
    // client asks for its answer's id as soon as it has the answer.
    await Promise.all(Array.from({ length: 24 }, async (_, i) => {
      const stream = i % 2 === 1;
      const first = await turn(client, stream, { input: `question ${i}` });
      assert.equal((await client.responses.retrieve(first.id)).id, first.id);
      const next = await turn(client, stream, {
        input: `again ${i}`,
        previous_response_id: first.id,
      });
      assert.equal(next.output_text, `fake:up says again ${i}`);
    }));
  }));

Deno.test("stored responses: store false keeps nothing, and a responses channel is told so", () =>
  withScope(async (s) => {
    const { fake, client, gateway } = await storing(s, "responses");
    const unkept = await client.responses.create({ model: "m", input: "forget me", store: false });
    assert.equal((fake.requests.at(-1)!.body as Record<string, unknown>).store, false);
    await assert.rejects(client.responses.retrieve(unkept.id), { status: 404 });
    const rows = await gateway.db.kysely.selectFrom("stored_responses").selectAll().execute();
    assert.equal(rows.length, 0);
  }));

Deno.test("stored responses: every turn of a stored chain sticks to the channel of its first", () =>
  withScope(async (s) => {
    const fakes = [await s.fake({ name: "a" }), await s.fake({ name: "b" })];
    const { gateway, secret } = await gatewayWithKey(
      s,
      fakes.map((fake) =>
        channel({ name: fake.name, protocol: "chat", models: ["m"], baseUrl: fake.url })
      ).join(""),
    );
    const client = openaiClient(gateway, secret);
    const served = new Set<string>();
    for (let conversation = 0; conversation < 16; conversation++) {
      const names: string[] = [];
      let previous: string | undefined;
      for (let turn = 0; turn < 3; turn++) {
        const response = await client.responses.create({
          model: "m",
          input: `conversation ${conversation}, turn ${turn}`,
          ...(previous ? { previous_response_id: previous } : {}),
        });
        previous = response.id;
        names.push(response.output_text.split(" ")[0]!);
      }
      assert.equal(new Set(names).size, 1, `conversation ${conversation}: ${names}`);
      served.add(names[0]!);
    }
    assert.equal(served.size, 2, "conversations spread over both channels");
  }));
