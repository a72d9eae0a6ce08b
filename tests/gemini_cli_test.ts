/**
 * Gemini CLI's requests as it really sends them (recorded from @google/gemini-cli 0.61.0:
 * tests/fixtures/gemini/README.md), replayed with their own headers to a channel of every
 * protocol: answered as an SSE stream of `data:` lines only (its parser stalls on anything
 * else), the hints it always sends (`topK`, a `thinkingConfig`) dropped for a model not
 * marked `reasoning`, its function declarations (`parametersJsonSchema`) and its tool turn
 * (a call with an id it made up, and its response) translated.
 */
import assert from "node:assert/strict";
import { channel, configWith } from "./harness.ts";
import { eventJson, readEvents, type Scope, withScope } from "./support.ts";

interface Recorded {
  path: string;
  search: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

const FIXTURES = new URL("./fixtures/gemini/", import.meta.url);
const FIRST: Recorded = JSON.parse(
  await Deno.readTextFile(new URL("gemini_cli_0.61.0_request.json", FIXTURES)),
);
const TOOL_TURN: Recorded = JSON.parse(
  await Deno.readTextFile(new URL("gemini_cli_0.61.0_tool_turn.json", FIXTURES)),
);
const MODEL = "gemini-2.5-flash";

/** A gateway serving the CLI's model on one channel of `protocol` (a fake behind it, or echo). */
async function cliGateway(s: Scope, protocol: string, extra = "") {
  const fake = await s.fake({ name: protocol });
  const gateway = await s.gateway(configWith(
    channel({
      name: protocol,
      protocol,
      baseUrl: protocol === "echo" ? undefined : fake.url,
      models: [MODEL],
    }),
    extra,
  ));
  const { secret } = await gateway.createKey();
  return { fake, gateway, secret };
}

/** Replays a recorded request with `key` in place of the CLI's. */
function replay(gatewayUrl: string, recorded: Recorded, key: string): Promise<Response> {
  return fetch(`${gatewayUrl}${recorded.path}${recorded.search}`, {
    method: "POST",
    headers: { ...recorded.headers, "x-goog-api-key": key, "accept-encoding": "identity" },
    body: JSON.stringify(recorded.body),
  });
}

/** The text of a Gemini stream's chunks, and its last chunk. */
async function readGeminiStream(response: Response) {
  assert.equal(response.status, 200, await response.clone().text());
  assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
  const text = await response.clone().text();
  for (const line of text.split(/\r?\n/)) {
    assert.ok(line === "" || line.startsWith("data: "), `a line Gemini CLI cannot parse: ${line}`);
  }
  const chunks = eventJson(await readEvents(response)) as {
    candidates?: { content?: { parts?: Record<string, unknown>[] }; finishReason?: string }[];
    usageMetadata?: Record<string, number>;
  }[];
  const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
  return {
    text: parts.map((part) => part.text ?? "").join(""),
    parts,
    last: chunks.at(-1)!,
  };
}

for (const protocol of ["chat", "responses", "messages", "gemini", "echo"]) {
  Deno.test(`gemini cli: its recorded request and tool turn through a ${protocol} channel`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await cliGateway(s, protocol);
      const first = await readGeminiStream(await replay(gateway.url, FIRST, secret));
      const asked = "What does main.ts do? Answer in one sentence.";
      assert.ok(first.text.endsWith(asked), first.text);
      assert.equal(first.last.candidates?.[0]?.finishReason, "STOP");
      assert.ok((first.last.usageMetadata?.promptTokenCount ?? 0) > 1000);
      const second = await readGeminiStream(await replay(gateway.url, TOOL_TURN, secret));
      assert.equal(second.last.candidates?.[0]?.finishReason, "STOP");
      if (protocol === "echo") return;

      const [sentFirst, sentSecond] = fake.requests.map((request) => JSON.stringify(request.body));
      // Its system instruction, its tools by name and its prompt reach the upstream.
      assert.match(sentFirst!, /interactive CLI agent/);
      assert.match(sentFirst!, /"read_file"/);
      assert.match(sentFirst!, /What does main\.ts do\?/);
      // The tool turn: the call and its result, joined by the id the CLI made up.
      assert.match(sentSecond!, /read_file_1796664332500_0/);
      assert.match(sentSecond!, /console\.log/);
      if (protocol === "gemini") {
        // Passed through as the CLI wrote it.
        assert.deepEqual(fake.requests[0]!.body, FIRST.body);
        assert.equal(fake.requests[0]!.path, `/v1/models/${MODEL}:streamGenerateContent`);
        return;
      }
      // Thinking is not honoured by a model not marked `reasoning`, nor topK by OpenAI's
      // protocols: dropped (messages has top_k).
      const sent = fake.requests[0]!.body as Record<string, unknown>;
      assert.equal(sent.top_k, protocol === "messages" ? 64 : undefined);
      for (const field of ["topK", "reasoning", "reasoning_effort", "thinking"]) {
        assert.equal(sent[field], undefined, field);
      }
    }));
}

Deno.test("gemini cli: a model marked reasoning gets its thinking budget, on a messages channel", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await cliGateway(
      s,
      "messages",
      `[models."${MODEL}"]\nreasoning = true\nmax_output_tokens = 32000\n`,
    );
    await readGeminiStream(await replay(gateway.url, FIRST, secret));
    const sent = fake.requests[0]!.body as { thinking?: { type: string; budget_tokens?: number } };
    assert.equal(sent.thinking?.type, "enabled");
    assert.equal(sent.thinking?.budget_tokens, 8192);
  }));

Deno.test("gemini cli: a function call from a chat upstream reaches it whole, args as an object", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await cliGateway(s, "chat");
    fake.setBehaviour({
      reply: {
        text: "",
        toolCalls: [{ id: "call_9", name: "read_file", arguments: '{"file_path":"main.ts"}' }],
      },
    });
    const answer = await readGeminiStream(await replay(gateway.url, FIRST, secret));
    const calls = answer.parts.filter((part) => part.functionCall);
    assert.deepEqual(calls.map((part) => part.functionCall), [
      { id: "call_9", name: "read_file", args: { file_path: "main.ts" } },
    ]);
  }));
