import assert from "node:assert/strict";
import { GatewayError } from "../../errors.ts";
import type { IrRequest, IrTurn } from "../../translate/ir.ts";
import { wrapOpaque } from "../../translate/opaque.ts";
import { decodeGeminiRequest } from "./request_decode.ts";
import { geminiCliRequest } from "./test_support.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const route = { model: "gemini-2.5-pro", stream: true };
const ask = (text: string) => ({ role: "user", parts: [{ text }] });
const decode = (body: Record<string, unknown>) => decodeGeminiRequest(body, route);

Deno.test("gemini request decode: Gemini CLI's request", () => {
  const request = decode(geminiCliRequest());
  assert.equal(request.model, "gemini-2.5-pro");
  assert.equal(request.stream, true);
  assert.equal(request.system.length, 1);
  assert.ok(request.system[0]!.text.length > 30_000);
  assert.equal(request.turns.length, 1);
  const turn = request.turns[0]!;
  assert.equal(turn.role, "user");
  assert.deepEqual(turn.parts.map((part) => part.type), ["text", "text"]);
  assert.equal(request.tools.length, 8);
  assert.deepEqual(request.tools[1], {
    kind: "function",
    name: "read_file",
    description: "Reads and returns the content of a file.",
    parameters: {
      type: "object",
      properties: {
        file_path: { type: "string", description: "The path to the file to read." },
        offset: { type: "number", description: "The line to start from." },
        limit: { type: "number", description: "How many lines to read." },
      },
      required: ["file_path"],
    },
    strict: false,
  });
  assert.equal(request.temperature, 1);
  assert.equal(request.topP, 0.95);
  assert.equal(request.topK, 64, "kept: the messages encoder honours it, the others drop it");
  assert.deepEqual(request.reasoning, { enabled: true, summary: "auto" });
  assert.equal(request.toolChoice, undefined);
  assert.deepEqual(request.dropped, []);
});

Deno.test("gemini request decode: without a route, the body's model and no stream", () => {
  const request = decodeGeminiRequest({ model: "models/gemini-2.5-flash", contents: [ask("hi")] });
  assert.equal(request.model, "gemini-2.5-flash");
  assert.equal(request.stream, false);
});

interface Case {
  name: string;
  body: Record<string, unknown>;
  expect: Partial<IrRequest>;
}

const CASES: Case[] = [
  {
    name: "system instruction under either name, any role, empty text left out",
    body: {
      system_instruction: { role: "system", parts: [{ text: "a" }, { text: "" }, { text: "b" }] },
      contents: [ask("hi")],
    },
    expect: { system: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
  },
  {
    name: "a streamed answer kept as one content per chunk is one turn; thoughts and texts joined",
    body: {
      contents: [
        ask("hi"),
        { role: "model", parts: [{ text: "Let me ", thought: true }] },
        { role: "model", parts: [{ text: "think.", thought: true }] },
        { role: "model", parts: [{ text: "Hello" }] },
        { role: "model", parts: [{ text: " there" }] },
        { role: "model", parts: [{ text: "" }] },
        ask("again"),
      ],
    },
    expect: {
      turns: [
        { role: "user", parts: [{ type: "text", text: "hi" }] },
        {
          role: "assistant",
          parts: [{ type: "reasoning", text: "Let me think." }, {
            type: "text",
            text: "Hello there",
          }],
        },
        { role: "user", parts: [{ type: "text", text: "again" }] },
      ],
    },
  },
  {
    name: "inline image, PDF and a file URI",
    body: {
      contents: [{
        role: "user",
        parts: [
          { text: "What is this?" },
          { inlineData: { mimeType: "image/png", data: PNG } },
          { inline_data: { mime_type: "application/pdf", data: "JVBERi0=" } },
          { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/cat.jpg" } },
        ],
      }],
    },
    expect: {
      turns: [{
        role: "user",
        parts: [
          { type: "text", text: "What is this?" },
          { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } },
          {
            type: "document",
            source: { kind: "base64", mediaType: "application/pdf", data: "JVBERi0=" },
          },
          { type: "image", source: { kind: "url", url: "https://example.com/cat.jpg" } },
        ],
      }],
    },
  },
  {
    name: "calls without ids get them from their place; results find them by name and order",
    body: {
      contents: [
        ask("weather in Paris and Rome, and the time"),
        {
          role: "model",
          parts: [
            { functionCall: { name: "get_weather", args: { city: "Paris" } } },
            { functionCall: { name: "get_weather", args: { city: "Rome" } } },
            { functionCall: { name: "get_time", args: {} } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { name: "get_time", response: { output: "12:00" } } },
            { functionResponse: { name: "get_weather", response: { output: "Sunny" } } },
            { functionResponse: { name: "get_weather", response: { error: "No data" } } },
          ],
        },
      ],
    },
    expect: {
      turns: [
        {
          role: "user",
          parts: [{ type: "text", text: "weather in Paris and Rome, and the time" }],
        },
        {
          role: "assistant",
          parts: [
            {
              type: "tool_call",
              id: "call_1_0",
              name: "get_weather",
              arguments: '{"city":"Paris"}',
            },
            {
              type: "tool_call",
              id: "call_1_1",
              name: "get_weather",
              arguments: '{"city":"Rome"}',
            },
            { type: "tool_call", id: "call_1_2", name: "get_time", arguments: "{}" },
          ],
        },
        {
          role: "user",
          parts: [
            { type: "tool_result", callId: "call_1_2", content: [{ type: "text", text: "12:00" }] },
            { type: "tool_result", callId: "call_1_0", content: [{ type: "text", text: "Sunny" }] },
            {
              type: "tool_result",
              callId: "call_1_1",
              content: [{ type: "text", text: "No data" }],
              isError: true,
            },
          ],
        },
      ],
    },
  },
  {
    name: "a result whose id names no call answers the earliest call of its name",
    body: {
      contents: [
        ask("go"),
        { role: "model", parts: [{ functionCall: { name: "read_file", args: {} } }] },
        {
          role: "user",
          parts: [{
            functionResponse: {
              id: "read_file__read_file_1754006400000_0",
              name: "read_file",
              response: { output: "text" },
            },
          }],
        },
      ],
    },
    expect: {
      turns: [
        { role: "user", parts: [{ type: "text", text: "go" }] },
        {
          role: "assistant",
          parts: [{ type: "tool_call", id: "call_1_0", name: "read_file", arguments: "{}" }],
        },
        {
          role: "user",
          parts: [{
            type: "tool_result",
            callId: "call_1_0",
            content: [{ type: "text", text: "text" }],
          }],
        },
      ],
    },
  },
  {
    name: "ids when the client has them; a structured response is its JSON text",
    body: {
      contents: [
        ask("go"),
        {
          role: "model",
          parts: [{
            functionCall: { id: "read_file__toolu_1", name: "read_file", args: { p: 1 } },
          }],
        },
        {
          role: "user",
          parts: [{
            functionResponse: {
              id: "read_file__toolu_1",
              name: "read_file",
              response: { lines: 3, text: "abc" },
              parts: [{ inlineData: { mimeType: "image/png", data: PNG } }],
            },
          }],
        },
      ],
    },
    expect: {
      turns: [
        { role: "user", parts: [{ type: "text", text: "go" }] },
        {
          role: "assistant",
          parts: [{
            type: "tool_call",
            id: "read_file__toolu_1",
            name: "read_file",
            arguments: '{"p":1}',
          }],
        },
        {
          role: "user",
          parts: [{
            type: "tool_result",
            callId: "read_file__toolu_1",
            content: [
              { type: "text", text: '{"lines":3,"text":"abc"}' },
              { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } },
            ],
          }],
        },
      ],
    },
  },
  {
    name: "tools: declarations with an OpenAPI schema, Google search; the rest dropped",
    body: {
      contents: [ask("hi")],
      tools: [
        {
          functionDeclarations: [{
            name: "get_weather",
            parameters: {
              type: "OBJECT",
              properties: {
                city: { type: "STRING", description: "City" },
                days: { type: "INTEGER", nullable: true, maxItems: "3" },
                tags: { type: "ARRAY", items: { type: "STRING", enum: ["a", "b"] } },
              },
              required: ["city"],
              propertyOrdering: ["city", "days", "tags"],
            },
            behavior: "NON_BLOCKING",
          }, { name: "ping" }],
        },
        { googleSearch: {} },
        { code_execution: {} },
        { urlContext: {} },
      ],
    },
    expect: {
      tools: [
        {
          kind: "function",
          name: "get_weather",
          parameters: {
            type: "object",
            required: ["city"],
            properties: {
              city: { type: "string", description: "City" },
              days: { type: ["integer", "null"], maxItems: 3 },
              tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
            },
          },
          strict: false,
        },
        {
          kind: "function",
          name: "ping",
          parameters: { type: "object", properties: {} },
          strict: false,
        },
        { kind: "web_search" },
      ],
      dropped: [
        "tools[0].functionDeclarations[0].behavior",
        "tools[2].code_execution",
        "tools[3].urlContext",
      ],
    },
  },
  {
    name: "ANY with one allowed function forces it",
    body: {
      contents: [ask("hi")],
      tools: [{ functionDeclarations: [{ name: "a" }, { name: "b" }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["b"] } },
    },
    expect: { toolChoice: { type: "tool", name: "b" } },
  },
  {
    name: "ANY with several allowed functions offers only those",
    body: {
      contents: [ask("hi")],
      tools: [{ functionDeclarations: [{ name: "a" }, { name: "b" }, { name: "c" }] }],
      tool_config: { function_calling_config: { mode: "ANY", allowed_function_names: ["a", "c"] } },
    },
    expect: {
      toolChoice: { type: "required" },
      tools: [
        {
          kind: "function",
          name: "a",
          parameters: { type: "object", properties: {} },
          strict: false,
        },
        {
          kind: "function",
          name: "c",
          parameters: { type: "object", properties: {} },
          strict: false,
        },
      ],
    },
  },
  {
    name: "NONE, and generation config with a JSON schema answer and a thinking budget",
    body: {
      contents: [ask("hi")],
      toolConfig: { functionCallingConfig: { mode: "NONE" } },
      generationConfig: {
        maxOutputTokens: 500,
        stopSequences: ["END", 3],
        candidateCount: 2,
        responseMimeType: "application/json",
        responseJsonSchema: { type: "object", properties: { a: { type: "number" } } },
        thinkingConfig: { thinkingBudget: 8192 },
        seed: 7,
        presencePenalty: 0.5,
      },
      safetySettings: [{ category: "HARM_CATEGORY_HATE_SPEECH", threshold: "BLOCK_NONE" }],
    },
    expect: {
      toolChoice: { type: "none" },
      maxOutputTokens: 500,
      stop: ["END"],
      n: 2,
      output: {
        type: "json_schema",
        name: "response",
        schema: { type: "object", properties: { a: { type: "number" } } },
        strict: false,
      },
      reasoning: { enabled: true, budgetTokens: 8192, effort: "medium" },
      dropped: ["safetySettings", "generationConfig.seed", "generationConfig.presencePenalty"],
    },
  },
  {
    name: "JSON mode with an OpenAPI response schema; a thinking level; log probabilities",
    body: {
      contents: [ask("hi")],
      generationConfig: {
        responseMimeType: "application/json",
        responseSchema: { type: "ARRAY", items: { type: "STRING" } },
        thinkingConfig: { thinkingLevel: "LOW" },
        responseLogprobs: true,
        logprobs: 3,
      },
    },
    expect: {
      output: {
        type: "json_schema",
        name: "response",
        schema: { type: "array", items: { type: "string" } },
        strict: false,
      },
      reasoning: { enabled: true, effort: "low" },
      logprobs: true,
      topLogprobs: 3,
    },
  },
  {
    name: "thinking off; JSON without a schema; audio output asked",
    body: {
      contents: [ask("hi")],
      generationConfig: {
        thinkingConfig: { thinkingBudget: 0, includeThoughts: true },
        responseMimeType: "application/json",
        responseModalities: ["TEXT", "AUDIO"],
      },
    },
    expect: { reasoning: { enabled: false }, output: { type: "json_object" }, audio: true },
  },
  {
    name: "code Gemini ran is dropped; Gemini's own signature is kept as its opaque state",
    body: {
      contents: [
        ask("compute"),
        {
          role: "model",
          parts: [
            { executableCode: { language: "PYTHON", code: "print(1)" } },
            { codeExecutionResult: { outcome: "OUTCOME_OK", output: "1" } },
            { text: "It is 1.", thoughtSignature: "CiQB0e2Kb3mVfJ6J9y4cGfZ0" },
          ],
        },
      ],
    },
    expect: {
      turns: [
        { role: "user", parts: [{ type: "text", text: "compute" }] },
        {
          role: "assistant",
          parts: [
            {
              type: "reasoning",
              text: "",
              opaque: { kind: "gemini_signature", value: "CiQB0e2Kb3mVfJ6J9y4cGfZ0" },
            },
            { type: "text", text: "It is 1." },
          ],
        },
      ],
      dropped: [
        "contents[1].parts[0] (code execution)",
        "contents[1].parts[1] (code execution)",
      ],
    },
  },
];

for (const c of CASES) {
  Deno.test(`gemini request decode: ${c.name}`, () => {
    const request = decode(c.body);
    for (const [key, value] of Object.entries(c.expect)) {
      assert.deepEqual(request[key as keyof IrRequest], value, key);
    }
    if (!("dropped" in c.expect)) assert.deepEqual(request.dropped, []);
  });
}

Deno.test("gemini request decode: opaque state tollgate gave a Gemini client comes back", () => {
  const signed = wrapOpaque({ kind: "anthropic_signature", value: "sig-A" }, "openai_encrypted");
  const encrypted = wrapOpaque({ kind: "openai_encrypted", value: "enc-B" }, "anthropic_signature");
  const model = (parts: Record<string, unknown>[]) => ({ role: "model", parts });
  const turns = (contents: Record<string, unknown>[]) =>
    decode({ contents: [ask("q"), ...contents] }).turns[1] as IrTurn;
  // The SDK's chat keeps thoughts: the signature goes back on the thought before it.
  assert.deepEqual(
    turns([
      model([{ text: "Thinking.", thought: true }]),
      model([{ functionCall: { id: "t1", name: "f", args: {} }, thoughtSignature: signed }]),
    ]).parts,
    [
      {
        type: "reasoning",
        text: "Thinking.",
        opaque: { kind: "anthropic_signature", value: "sig-A" },
      },
      { type: "tool_call", id: "t1", name: "f", arguments: "{}" },
    ],
  );
  // Gemini CLI keeps no thoughts: OpenAI's encrypted state stands alone; Anthropic's
  // signature without its thinking text is dropped (Anthropic would refuse it).
  const request = decode({
    contents: [
      ask("q"),
      model([
        { text: "", thoughtSignature: signed },
        { text: "", thoughtSignature: encrypted },
        { functionCall: { id: "t1", name: "f", args: {} } },
      ]),
    ],
  });
  assert.deepEqual(request.turns[1]!.parts, [
    { type: "reasoning", text: "", opaque: { kind: "openai_encrypted", value: "enc-B" } },
    { type: "tool_call", id: "t1", name: "f", arguments: "{}" },
  ]);
  assert.deepEqual(request.dropped, [
    "contents[1].parts[0].thoughtSignature (its thought text was not sent back)",
  ]);
  // Gemini CLI's placeholder is Gemini's business.
  assert.deepEqual(
    turns([
      model([{
        functionCall: { name: "f" },
        thoughtSignature: "skip_thought_signature_validator",
      }]),
    ])
      .parts,
    [{ type: "tool_call", id: "call_1_0", name: "f", arguments: "{}" }],
  );
});

const REFUSED: { name: string; body: Record<string, unknown>; param: string }[] = [
  {
    name: "cached content",
    body: { contents: [ask("hi")], cachedContent: "cachedContents/x" },
    param: "cachedContent",
  },
  {
    name: "audio input",
    body: { contents: [{ parts: [{ inlineData: { mimeType: "audio/wav", data: "UklG" } }] }] },
    param: "contents[0].parts[0]",
  },
  {
    name: "a system role in contents",
    body: { contents: [{ role: "system", parts: [{ text: "x" }] }] },
    param: "contents[0].role",
  },
  {
    name: "a function call in a user content",
    body: { contents: [{ role: "user", parts: [{ functionCall: { name: "f" } }] }] },
    param: "contents[0].parts[0]",
  },
  {
    name: "an image in the system instruction",
    body: { systemInstruction: { parts: [{ inlineData: {} }] }, contents: [ask("hi")] },
    param: "systemInstruction.parts[0]",
  },
];

for (const c of REFUSED) {
  Deno.test(`gemini request decode refuses ${c.name}`, () => {
    assert.throws(() => decode(c.body), (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.code, "convert_request_failed");
      assert.equal(error.param, c.param);
      return true;
    });
  });
}
