/**
 * Golden tests of translation in all six directions: the recorded transcripts of each
 * protocol (tests/fixtures/transcripts/<protocol>/<case>/, written from the API
 * references) go through the real translation of a client of another protocol; the
 * upstream request, the client's whole answer and the client's stream are compared with
 * the reviewed expectations in tests/fixtures/golden/<client>_via_<upstream>/<case>/.
 * Each client output is also parsed by that protocol's official SDK, the strictest
 * client there is. `UPDATE_GOLDEN=1 deno test -A tests/translation_golden_test.ts`
 * rewrites the expectations (review the diff before committing it).
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { EntryProtocol } from "../src/config/schema.ts";
import { protocolOf } from "../src/protocols/index.ts";
import { encodeSse, type SseEvent } from "../src/translate/sse.ts";
import type { Translation } from "../src/translate/translation.ts";
import { createTranslator } from "../src/translate/translator.ts";
import { CASES } from "../src/protocols/chat/test_support.ts";
import { parseEvents } from "./support.ts";

const PROTOCOLS: EntryProtocol[] = ["chat", "responses", "messages"];
const TRANSCRIPTS = new URL("./fixtures/transcripts/", import.meta.url);
const GOLDEN = new URL("./fixtures/golden/", import.meta.url);
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

function read(url: URL): string | undefined {
  try {
    return Deno.readTextFileSync(url);
  } catch {
    return undefined;
  }
}

/** Compares `actual` with the golden file, or writes it in update mode. */
function golden(direction: string, name: string, file: string, actual: string): void {
  const url = new URL(`${direction}/${name}/${file}`, GOLDEN);
  if (UPDATE) {
    Deno.mkdirSync(new URL(".", url), { recursive: true });
    Deno.writeTextFileSync(url, actual);
    return;
  }
  const expected = read(url);
  assert.ok(
    expected !== undefined,
    `missing golden ${direction}/${name}/${file}: run UPDATE_GOLDEN=1`,
  );
  assert.equal(actual, expected, `${direction}/${name}/${file}`);
}

/** A deterministic translation of a client body toward `upstream`. */
function translation(
  client: EntryProtocol,
  upstream: EntryProtocol,
  body: Record<string, unknown>,
) {
  const request = protocolOf(client).parseRequest(body, {});
  let next = 0;
  const drops: string[] = [];
  const translator = createTranslator({
    entry: protocolOf(client),
    request,
    requestId: "req_golden",
    defaultMaxOutputTokens: 4096,
    reasoning: true,
    inputTokensHint: () => 1234,
    now: () => 1_700_000_000_000,
    drop: (what) => drops.push(what),
    newId: (prefix) => `${prefix}golden${++next}`,
  });
  return { translation: translator.toward(protocolOf(upstream)), drops, request };
}

/**
 * The client stream for an upstream SSE transcript, as SSE text; answers name `model`, as
 * the goldens were written with the client's own.
 */
function clientStream(
  translation: Translation,
  upstreamSse: string,
  model: string,
): Promise<string> {
  return parseEvents(upstreamSse).then((events) => {
    const converter = translation.stream(model, false);
    const out: SseEvent[] = [...converter.events(events)];
    if (!converter.failure()) out.push(...converter.end());
    return out.map(encodeSse).join("");
  });
}

/** The official SDK's reading of a client stream: its final answer, or the error it raised. */
async function sdkReading(client: EntryProtocol, sse: string): Promise<string> {
  const fetch: typeof globalThis.fetch = () =>
    Promise.resolve(new Response(sse, { headers: { "content-type": "text/event-stream" } }));
  try {
    if (client === "messages") {
      const sdk = new Anthropic({ apiKey: "k", fetch, maxRetries: 0 });
      const message = await sdk.messages
        .stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] })
        .finalMessage();
      return `message ${message.stop_reason} ${message.content.map((b) => b.type).join(",")}`;
    }
    const sdk = new OpenAI({ apiKey: "k", fetch, maxRetries: 0 });
    if (client === "chat") {
      const completion = await sdk.chat.completions
        .stream({ model: "m", messages: [{ role: "user", content: "x" }] })
        .finalChatCompletion();
      const choice = completion.choices[0]!;
      return `chat ${choice.finish_reason} ${choice.message.tool_calls?.length ?? 0} calls`;
    }
    const response = await sdk.responses.stream({ model: "m", input: "x" }).finalResponse();
    return `responses ${response.status} ${response.output.map((item) => item.type).join(",")}`;
  } catch (error) {
    return `error ${error instanceof Error ? error.constructor.name : typeof error}`;
  }
}

for (const client of PROTOCOLS) {
  for (const upstream of PROTOCOLS) {
    if (client === upstream) continue;
    const direction = `${client}_via_${upstream}`;
    for (const name of CASES) {
      Deno.test(`translation golden: ${direction} ${name}`, async () => {
        const clientBody = JSON.parse(
          read(new URL(`${client}/${name}/request.json`, TRANSCRIPTS))!,
        );
        const { translation: t, drops } = translation(client, upstream, clientBody);
        const upstreamBody = t.upstreamBody("upstream-model");
        golden(
          direction,
          name,
          "upstream_request.json",
          JSON.stringify({ body: upstreamBody, dropped: drops }, null, 2) + "\n",
        );
        const response = read(new URL(`${upstream}/${name}/response.json`, TRANSCRIPTS));
        if (response !== undefined) {
          const converted = t.response({
            bytes: new TextEncoder().encode(response),
            text: response,
            json: JSON.parse(response),
          }, clientBody.model);
          golden(
            direction,
            name,
            "client_response.json",
            JSON.stringify(
              { body: JSON.parse(String(converted.body)), usage: converted.usage },
              null,
              2,
            ) +
              "\n",
          );
        }
        const sse = read(new URL(`${upstream}/${name}/stream.sse`, TRANSCRIPTS))!;
        const stream = await clientStream(t, sse, clientBody.model);
        golden(direction, name, "client_stream.sse", stream);
        const reading = await sdkReading(client, stream);
        const failing = name.startsWith("error");
        assert.equal(reading.startsWith("error"), failing, `${direction} ${name}: ${reading}`);
        golden(direction, name, "sdk_reading.txt", reading + "\n");
      });
    }
  }
}
