import assert from "node:assert/strict";
import fc from "fast-check";
import { GatewayError } from "../../errors.ts";
import {
  countTokensResponse,
  gemini,
  type GeminiRoute,
  parseCountTokensRequest,
  parseMethodPath,
} from "./index.ts";
import { ContentSchema, isContent } from "./schema.ts";
import { geminiCliRequest } from "./test_support.ts";

const user = { role: "user", parts: [{ text: "hi" }] };
const route: GeminiRoute = { model: "gemini-2.5-flash", stream: false };

interface ValidCase {
  name: string;
  body: Record<string, unknown>;
  route?: GeminiRoute;
  maxOutputTokens?: number;
}

const VALID: ValidCase[] = [
  { name: "one content without a role", body: { contents: [{ parts: [{ text: "hi" }] }] } },
  {
    name: "Gemini CLI's request, streamed",
    body: geminiCliRequest(),
    route: { model: "gemini-2.5-pro", stream: true },
  },
  {
    name: "every read field set",
    body: {
      contents: [user, { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] }],
      systemInstruction: { role: "user", parts: [{ text: "be brief" }] },
      tools: [{ functionDeclarations: [{ name: "f", parameters: { type: "OBJECT" } }] }, {
        googleSearch: {},
      }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } },
      generationConfig: {
        maxOutputTokens: 256,
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        stopSequences: ["END"],
        candidateCount: 1,
        responseMimeType: "application/json",
        responseSchema: { type: "OBJECT" },
        thinkingConfig: { thinkingBudget: -1, includeThoughts: true },
      },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
      cachedContent: "cachedContents/abc",
      labels: { team: "x" },
    },
    maxOutputTokens: 256,
  },
  {
    name: "nulls read as absent",
    body: { contents: [user], generationConfig: null, tools: null, systemInstruction: null },
  },
  {
    name: "the proto (snake_case) name of the output cap",
    body: { contents: [user], generation_config: { max_output_tokens: 64 } },
    maxOutputTokens: 64,
  },
];

for (const c of VALID) {
  Deno.test(`gemini parseRequest accepts ${c.name}`, () => {
    const parsed = gemini.parseRequest(c.body, c.route ?? route);
    assert.equal(parsed.protocol, "gemini");
    assert.equal(parsed.model, (c.route ?? route).model);
    assert.equal(parsed.stream, (c.route ?? route).stream);
    assert.equal(parsed.maxOutputTokens, c.maxOutputTokens);
    assert.equal(parsed.body, c.body, "the body is the client's own object");
  });
}

const INVALID: { body: unknown; param?: string; message: string }[] = [
  {
    body: {},
    param: "contents",
    message: "Invalid request: `contents` is required and must be a non-empty array of contents.",
  },
  {
    body: { contents: [] },
    param: "contents",
    message:
      "Invalid request: `contents` must be a non-empty array of contents, got an empty array.",
  },
  {
    body: { contents: [user, { role: "model" }] },
    param: "contents[1].parts",
    message:
      "Invalid request: `contents[1].parts` is required and must be a non-empty array of parts.",
  },
  {
    body: { contents: [user, { role: "model", parts: [] }] },
    param: "contents[1].parts",
    message:
      "Invalid request: `contents[1].parts` must be a non-empty array of parts, got an empty array.",
  },
  {
    body: { contents: [{ role: 1, parts: [{ text: "x" }] }] },
    param: "contents[0].role",
    message: "Invalid request: `contents[0].role` must be a string, got 1.",
  },
  {
    body: { contents: [{ parts: [{ text: "x" }, { text: 5 }] }] },
    param: "contents[0].parts[1].text",
    message: "Invalid request: `contents[0].parts[1].text` must be a string, got 5.",
  },
  {
    body: { contents: ["hi"] },
    param: "contents[0]",
    message: "Invalid request: `contents[0]` must be an object, got a string.",
  },
  {
    body: { contents: [user], systemInstruction: "be brief" },
    param: "systemInstruction",
    message: "Invalid request: `systemInstruction` must be an object with `parts`, got a string.",
  },
  {
    body: { contents: [user], tools: [{ functionDeclarations: [{ description: "no name" }] }] },
    param: "tools[0].functionDeclarations[0].name",
    message:
      "Invalid request: `tools[0].functionDeclarations[0].name` is required and must be a string.",
  },
  {
    body: { contents: [user], toolConfig: { functionCallingConfig: { mode: "SOMETIMES" } } },
    param: "toolConfig.functionCallingConfig.mode",
    message:
      "Invalid request: `toolConfig.functionCallingConfig.mode` must be one of MODE_UNSPECIFIED, AUTO, ANY, NONE, VALIDATED, got a string.",
  },
  {
    body: { contents: [user], generationConfig: { maxOutputTokens: 0 } },
    param: "generationConfig.maxOutputTokens",
    message:
      "Invalid request: `generationConfig.maxOutputTokens` must be an integer from 1 to 2147483647, got 0.",
  },
  {
    body: { contents: [user], generationConfig: { temperature: "hot" } },
    param: "generationConfig.temperature",
    message: "Invalid request: `generationConfig.temperature` must be a number, got a string.",
  },
  {
    body: { contents: [user], generationConfig: { stopSequences: "END" } },
    param: "generationConfig.stopSequences",
    message:
      "Invalid request: `generationConfig.stopSequences` must be an array of strings, got a string.",
  },
  {
    body: { contents: [user], generationConfig: { thinkingConfig: { thinkingBudget: -2 } } },
    param: "generationConfig.thinkingConfig.thinkingBudget",
    message:
      "Invalid request: `generationConfig.thinkingConfig.thinkingBudget` must be an integer from -1 to 2147483647, got -2.",
  },
  {
    body: { contents: [user], generationConfig: { thinkingConfig: { includeThoughts: "yes" } } },
    param: "generationConfig.thinkingConfig.includeThoughts",
    message:
      "Invalid request: `generationConfig.thinkingConfig.includeThoughts` must be a boolean, got a string.",
  },
  {
    body: { contents: [user], safetySettings: {} },
    param: "safetySettings",
    message:
      "Invalid request: `safetySettings` must be an array of safety settings, got an object.",
  },
  {
    body: { contents: [user], cachedContent: 7 },
    param: "cachedContent",
    message: "Invalid request: `cachedContent` must be a string, got 7.",
  },
  { body: [], message: "Invalid request: the body must be a JSON object, got an empty array." },
];

for (const c of INVALID) {
  Deno.test(`gemini parseRequest refuses ${JSON.stringify(c.body).slice(0, 70)}`, () => {
    assert.throws(() => gemini.parseRequest(c.body, route), (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.status, 400);
      assert.equal(error.code, "invalid_request");
      assert.equal(error.param, c.param);
      assert.equal(error.message, c.message);
      return true;
    });
  });
}

Deno.test("gemini parseRequest refuses an empty model in the path", () => {
  assert.throws(
    () => gemini.parseRequest({ contents: [user] }, { model: "", stream: false }),
    /`model` must be a non-empty string naming the model/,
  );
});

Deno.test("isContent accepts exactly what ContentSchema accepts", () => {
  const samples = [
    user,
    { parts: [{}] },
    { role: null, parts: [{ text: null }] },
    { role: "model", parts: [] },
    { role: "user", parts: [null] },
    { role: "user", parts: [{ text: 1 }] },
    { role: 2, parts: [{}] },
    { parts: "x" },
    [],
    "content",
  ];
  for (const value of samples) {
    assert.equal(isContent(value), ContentSchema.safeParse(value).success, JSON.stringify(value));
  }
  fc.assert(
    fc.property(
      fc.anything(),
      (value) => isContent(value) === ContentSchema.safeParse(value).success,
    ),
  );
  fc.assert(
    fc.property(
      fc.record({
        role: fc.anything(),
        parts: fc.array(fc.oneof(fc.anything(), fc.record({ text: fc.anything() }))),
      }, {
        requiredKeys: [],
      }),
      (value) => isContent(value) === ContentSchema.safeParse(value).success,
    ),
  );
});

Deno.test("parseMethodPath reads the model and the method after `/models/`", () => {
  const cases: [string, ReturnType<typeof parseMethodPath>][] = [
    ["gemini-2.5-flash:generateContent", { model: "gemini-2.5-flash", method: "generateContent" }],
    ["gemini-2.5-pro:streamGenerateContent", {
      model: "gemini-2.5-pro",
      method: "streamGenerateContent",
    }],
    ["gemini-2.0-flash-001:countTokens", { model: "gemini-2.0-flash-001", method: "countTokens" }],
    ["my%20model:generateContent", { model: "my model", method: "generateContent" }],
    ["gemini-2.5-flash%3AgenerateContent", {
      model: "gemini-2.5-flash",
      method: "generateContent",
    }],
    [":generateContent", undefined],
    ["gemini-2.5-flash", undefined],
    ["gemini-2.5-flash:embedContent", undefined],
    ["a/b:generateContent", undefined],
    ["bad%:generateContent", undefined],
  ];
  for (const [segment, expected] of cases) {
    assert.deepEqual(parseMethodPath(segment), expected, segment);
  }
});

Deno.test("gemini channels: the model in the path, the key in x-goog-api-key, no query", () => {
  const { upstream } = gemini;
  assert.equal(
    upstream.path("gemini-2.5-flash", false),
    "/models/gemini-2.5-flash:generateContent",
  );
  assert.equal(
    upstream.path("models/gemini-2.5-pro", true),
    "/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
  );
  assert.equal(
    upstream.countTokensPath!("gemini-2.5-flash"),
    "/models/gemini-2.5-flash:countTokens",
  );
  assert.deepEqual(upstream.credential, { header: "x-goog-api-key" });
  assert.equal(upstream.modelInPath, true);
  assert.equal(upstream.keepsQuery, false, "a client's `?key=` must never go upstream");
  assert.equal(gemini.keepalive, "", "Gemini CLI's parser stalls on SSE comments");
  assert.equal(gemini.overloadedStatus, 503);
});

Deno.test("gemini parseCountTokensRequest takes contents or a whole generateContentRequest", () => {
  assert.deepEqual(parseCountTokensRequest({ contents: [user] }, "gemini-2.5-flash"), {
    model: "gemini-2.5-flash",
    body: { contents: [user] },
  });
  const inner = {
    model: "models/gemini-2.5-flash",
    contents: [user],
    systemInstruction: { parts: [] },
  };
  assert.deepEqual(parseCountTokensRequest({ generateContentRequest: inner }, "gemini-2.5-flash"), {
    model: "gemini-2.5-flash",
    body: inner,
  });
  assert.throws(
    () => parseCountTokensRequest({}, "gemini-2.5-flash"),
    /`contents` is required and must be a non-empty array of contents/,
  );
  assert.throws(
    () => parseCountTokensRequest({ contents: [{ parts: [] }] }, "m"),
    /`contents\[0\].parts` must be a non-empty array of parts/,
  );
  assert.deepEqual(countTokensResponse(31), {
    totalTokens: 31,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: 31 }],
  });
});
