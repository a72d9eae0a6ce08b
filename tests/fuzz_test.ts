/**
 * Property-based fuzzing (fast-check) of the three entry points: whatever a client
 * sends, in the body or in the HTTP framing, the answer is below 500, errors come in
 * the entry point's shape, and the gateway keeps serving. Channels of every protocol
 * sit behind the models, so request decoding and translation are fuzzed too.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { channel, configWith, type TestGateway } from "./harness.ts";
import { withScope } from "./support.ts";

const PATHS = ["/v1/chat/completions", "/v1/responses", "/v1/messages"] as const;
type Path = typeof PATHS[number];
const MODELS = ["echo", "via-chat", "via-responses", "via-messages"];

/** An upstream that answers every request with a small valid reply of its protocol. */
function cannedUpstream(): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.json().catch(() => ({}));
    const path = new URL(request.url).pathname;
    const stream = body?.stream === true;
    const [json, events] = path.endsWith("/chat/completions")
      ? chatReply()
      : path.endsWith("/responses")
      ? responsesReply()
      : messagesReply();
    if (!stream) return Response.json(json);
    const text = events.map(([event, data]) =>
      `${event ? `event: ${event}\n` : ""}data: ${
        typeof data === "string" ? data : JSON.stringify(data)
      }\n\n`
    ).join("");
    return new Response(text, { headers: { "content-type": "text/event-stream" } });
  });
}

type Canned = [unknown, [string | undefined, unknown][]];

function chatReply(): Canned {
  const chunk = (delta: unknown, finish: string | null) => ({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  return [
    {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    },
    [
      [undefined, chunk({ role: "assistant", content: "ok" }, null)],
      [undefined, chunk({}, "stop")],
      [undefined, {
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "m",
        choices: [],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      }],
      [undefined, "[DONE]"],
    ],
  ];
}

function responsesReply(): Canned {
  const item = {
    id: "msg_1",
    type: "message",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text: "ok", annotations: [] }],
  };
  const response = (status: string, output: unknown[]) => ({
    id: "resp_1",
    object: "response",
    created_at: 1,
    status,
    model: "m",
    output,
    usage: status === "completed" ? { input_tokens: 3, output_tokens: 1, total_tokens: 4 } : null,
  });
  const events: [string, Record<string, unknown>][] = [
    ["response.created", { response: response("in_progress", []) }],
    ["response.output_item.added", { output_index: 0, item: { ...item, content: [] } }],
    ["response.output_text.delta", {
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      delta: "ok",
    }],
    ["response.output_item.done", { output_index: 0, item }],
    ["response.completed", { response: response("completed", [item]) }],
  ];
  return [
    response("completed", [item]),
    events.map(([type, data], index) => [type, { type, sequence_number: index, ...data }]),
  ];
}

function messagesReply(): Canned {
  const message = {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "m",
    content: [] as unknown[],
    stop_reason: null as string | null,
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 1 },
  };
  const events: [string, Record<string, unknown>][] = [
    ["message_start", { message }],
    ["content_block_start", { index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { index: 0, delta: { type: "text_delta", text: "ok" } }],
    ["content_block_stop", { index: 0 }],
    ["message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } }],
    ["message_stop", {}],
  ];
  return [
    { ...message, content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" },
    events.map(([type, data]) => [type, { type, ...data }]),
  ];
}

/** Arbitrary content: strings, and parts of known and unknown types with any fields. */
const content = fc.oneof(
  fc.string(),
  fc.jsonValue(),
  fc.array(
    fc.record({
      type: fc.constantFrom(
        "text",
        "image_url",
        "image",
        "input_text",
        "input_image",
        "tool_use",
        "tool_result",
        "thinking",
        "document",
        "file",
        "input_audio",
        "refusal",
        "weird",
      ),
      text: fc.oneof(fc.string(), fc.jsonValue()),
      image_url: fc.jsonValue(),
      source: fc.jsonValue(),
      id: fc.string(),
      name: fc.oneof(fc.string(), fc.jsonValue()),
      input: fc.jsonValue(),
      content: fc.jsonValue(),
      tool_use_id: fc.string(),
      signature: fc.string(),
    }, { requiredKeys: ["type"] }),
    { maxLength: 4 },
  ),
);

const message = fc.record({
  role: fc.oneof(
    fc.constantFrom("user", "assistant", "system", "developer", "tool", "function"),
    fc.jsonValue(),
  ),
  content,
  tool_calls: fc.jsonValue(),
  tool_call_id: fc.jsonValue(),
  type: fc.constantFrom("message", "function_call", "function_call_output", "reasoning", "x"),
  call_id: fc.string(),
  arguments: fc.oneof(fc.string(), fc.jsonValue()),
  output: fc.jsonValue(),
}, { requiredKeys: [] });

/** Bodies close to valid ones, with any field replaced by anything. */
const body = fc.oneof(
  { weight: 1, arbitrary: fc.jsonValue() },
  {
    weight: 5,
    arbitrary: fc.record({
      model: fc.oneof(fc.constantFrom(...MODELS), fc.jsonValue()),
      messages: fc.oneof(fc.array(message, { minLength: 1, maxLength: 4 }), fc.jsonValue()),
      input: fc.oneof(fc.string(), fc.array(message, { maxLength: 4 }), fc.jsonValue()),
      instructions: fc.jsonValue(),
      system: fc.oneof(fc.string(), content),
      max_tokens: fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.jsonValue(), fc.double()),
      max_output_tokens: fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.jsonValue()),
      stream: fc.oneof(fc.boolean(), fc.jsonValue()),
      stream_options: fc.jsonValue(),
      tools: fc.oneof(
        fc.array(
          fc.record({
            type: fc.constantFrom("function", "custom", "web_search", "bash_20250124", "x"),
            name: fc.string(),
            function: fc.jsonValue(),
            input_schema: fc.jsonValue(),
            parameters: fc.jsonValue(),
          }, { requiredKeys: [] }),
          { maxLength: 3 },
        ),
        fc.jsonValue(),
      ),
      tool_choice: fc.jsonValue(),
      thinking: fc.jsonValue(),
      reasoning: fc.jsonValue(),
      reasoning_effort: fc.jsonValue(),
      response_format: fc.jsonValue(),
      temperature: fc.jsonValue(),
      n: fc.jsonValue(),
      stop: fc.jsonValue(),
    }, { requiredKeys: [] }),
  },
);

/**
 * Checks an answer: below 500 (but for the catalogue's 503 `model_not_found`, the
 * designed answer to a model no channel serves), and errors in the shape of the path.
 */
async function assertAnswer(response: Response, path: Path): Promise<void> {
  const text = await response.text();
  const unknownModel = response.status === 503 && text.includes('"code":"model_not_found"');
  assert.ok(
    response.status < 500 || unknownModel,
    `${path} answered ${response.status}: ${text.slice(0, 500)}`,
  );
  if (response.status >= 400) {
    const json = JSON.parse(text);
    if (path === "/v1/messages") assert.equal(json.type, "error", text);
    else assert.equal(typeof json.error?.code, "string", text);
  }
}

async function fuzzGateway(s: Parameters<Parameters<typeof withScope>[0]>[0]) {
  const upstream = cannedUpstream();
  const base = `http://127.0.0.1:${upstream.addr.port}/v1`;
  const gateway = await s.gateway(
    `[server]\nmax_body_bytes = 65536\n` + configWith(
      channel({ name: "echo", protocol: "echo", models: ["echo"] }) +
        channel({ name: "chat", protocol: "chat", baseUrl: base, models: ["via-chat"] }) +
        channel({ name: "resp", protocol: "responses", baseUrl: base, models: ["via-responses"] }) +
        channel({ name: "msgs", protocol: "messages", baseUrl: base, models: ["via-messages"] }),
    ),
  );
  const { secret } = await gateway.createKey();
  return { gateway, secret, stop: () => upstream.shutdown() };
}

/** A valid request still succeeds. */
async function assertServing(gateway: TestGateway, secret: string): Promise<void> {
  const response = await gateway.post("/v1/chat/completions", secret, {
    model: "echo",
    messages: [{ role: "user", content: "still there?" }],
  });
  assert.equal(response.status, 200, await response.text());
}

Deno.test("fuzz: any body on any entry point is answered below 500 in its shape", () =>
  withScope(async (s) => {
    const { gateway, secret, stop } = await fuzzGateway(s);
    try {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...PATHS), body, async (path, value) => {
          await assertAnswer(await gateway.post(path, secret, value), path);
        }),
        { numRuns: 300 },
      );
      await assertServing(gateway, secret);
    } finally {
      await stop();
    }
  }));

/** Raw HTTP framing: lengths, encodings and headers as a careless or hostile client sends them. */
const framing = fc.record({
  path: fc.constantFrom(...PATHS),
  contentType: fc.constantFrom(
    "application/json",
    "text/plain",
    "application/json; charset=latin1",
    "",
    "multipart/form-data; boundary=x",
  ),
  length: fc.constantFrom("exact", "shorter", "longer", "none", "garbage", "negative"),
  chunked: fc.boolean(),
  body: fc.oneof(
    fc.uint8Array({ maxLength: 300 }),
    fc.jsonValue().map((value) => new TextEncoder().encode(JSON.stringify(value) ?? "null")),
    fc.constant(
      new TextEncoder().encode('{"model":"echo","messages":[{"role":"user","content":"hi"}]}'),
    ),
  ),
  bigHeader: fc.nat({ max: 20_000 }),
});

Deno.test("fuzz: broken HTTP framing never gets a 500 and the gateway keeps serving", () =>
  withScope(async (s) => {
    const { gateway, secret, stop } = await fuzzGateway(s);
    const { hostname, port } = new URL(gateway.url);
    try {
      await fc.assert(
        fc.asyncProperty(framing, async (f) => {
          const lines = [
            `POST ${f.path} HTTP/1.1`,
            "Host: fuzz",
            `Authorization: Bearer ${secret}`,
            "Connection: close",
          ];
          if (f.contentType) lines.push(`Content-Type: ${f.contentType}`);
          if (f.bigHeader > 0) lines.push(`X-Padding: ${"a".repeat(f.bigHeader)}`);
          let payload = f.body;
          if (f.chunked) {
            lines.push("Transfer-Encoding: chunked");
            payload = new Uint8Array([
              ...new TextEncoder().encode(`${f.body.length.toString(16)}\r\n`),
              ...f.body,
              ...new TextEncoder().encode(f.length === "shorter" ? "" : "\r\n0\r\n\r\n"),
            ]);
          } else {
            const declared = {
              exact: String(f.body.length),
              shorter: String(f.body.length + 10),
              longer: String(Math.max(0, f.body.length - 3)),
              none: undefined,
              garbage: "abc",
              negative: "-1",
            }[f.length];
            if (declared !== undefined) lines.push(`Content-Length: ${declared}`);
          }
          const connection = await Deno.connect({ hostname, port: Number(port) });
          try {
            await connection.write(new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n"));
            await connection.write(payload).catch(() => {});
            await connection.closeWrite().catch(() => {});
            const answer = await new Response(connection.readable).text().catch(() => "");
            const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
            assert.ok(status < 500, `${f.path} answered ${answer.slice(0, 300)}`);
            // Answers of the gateway itself (not the HTTP layer's) are in the path's shape.
            if (status >= 400 && /x-request-id:/i.test(answer)) {
              const json = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
              if (f.path === "/v1/messages") assert.equal(json.type, "error", answer);
              else assert.equal(typeof json.error?.code, "string", answer);
            }
          } finally {
            try {
              connection.close();
            } catch {
              // Already closed by the peer.
            }
          }
        }),
        { numRuns: 200 },
      );
      await assertServing(gateway, secret);
    } finally {
      await stop();
    }
  }));
