import assert from "node:assert/strict";
import type { EntryProtocol } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { protocolOf } from "./index.ts";
import { parseCountTokensRequest } from "./messages/index.ts";

const user = { role: "user", content: "hi" };

interface ValidCase {
  name: string;
  protocol: EntryProtocol;
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  maxOutputTokens?: number;
}

const VALID: ValidCase[] = [
  {
    name: "chat, minimal",
    protocol: "chat",
    body: { model: "gpt-4o-mini", messages: [user] },
    model: "gpt-4o-mini",
    stream: false,
  },
  {
    name: "chat, streaming with usage, max_completion_tokens over max_tokens",
    protocol: "chat",
    body: {
      model: "m",
      messages: [{ role: "system", content: "be brief" }, user],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 10,
      max_completion_tokens: 20,
      tools: [{ type: "custom", custom: { name: "x" } }],
      prompt_cache_key: "abc",
    },
    model: "m",
    stream: true,
    maxOutputTokens: 20,
  },
  {
    name: "chat, nulls read as absent",
    protocol: "chat",
    body: { model: "m", messages: [user], stream: null, stream_options: null, max_tokens: null },
    model: "m",
    stream: false,
  },
  {
    name: "chat, max_tokens zero",
    protocol: "chat",
    body: { model: "m", messages: [user], max_tokens: 0 },
    model: "m",
    stream: false,
    maxOutputTokens: 0,
  },
  {
    name: "responses, string input",
    protocol: "responses",
    body: { model: "gpt-5", input: "hello", max_output_tokens: 64, client_metadata: { a: 1 } },
    model: "gpt-5",
    stream: false,
    maxOutputTokens: 64,
  },
  {
    name: "responses, item input with a system role and unknown item types",
    protocol: "responses",
    body: {
      model: "gpt-5",
      input: [{ role: "system", content: "x" }, { type: "reasoning", id: "rs_1" }],
      stream: true,
      context_management: [{ type: "compaction" }],
    },
    model: "gpt-5",
    stream: true,
  },
  {
    name: "messages, full",
    protocol: "messages",
    body: {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
      messages: [user],
      stream: true,
      output_config: { effort: "high" },
      tools: [{ type: "web_search_20250305", name: "web_search" }],
    },
    model: "claude-sonnet-4-5",
    stream: true,
    maxOutputTokens: 1024,
  },
];

for (const c of VALID) {
  Deno.test(`parseEntryRequest accepts ${c.name}`, () => {
    const request = protocolOf(c.protocol).parseRequest(c.body, {});
    assert.equal(request.protocol, c.protocol);
    assert.equal(request.model, c.model);
    assert.equal(request.stream, c.stream);
    assert.equal(request.maxOutputTokens, c.maxOutputTokens);
    assert.equal(request.body, c.body, "the body is the client's own object");
  });
}

interface InvalidCase {
  protocol: EntryProtocol;
  body: unknown;
  param?: string;
  message: string;
}

const INVALID: InvalidCase[] = [
  {
    protocol: "chat",
    body: { model: "m" },
    param: "messages",
    message: "Invalid request: `messages` is required and must be a non-empty array of messages.",
  },
  {
    protocol: "chat",
    body: { model: "m", messages: [] },
    param: "messages",
    message:
      "Invalid request: `messages` must be a non-empty array of messages, got an empty array.",
  },
  {
    protocol: "chat",
    body: { model: "m", messages: [user, { content: "no role" }] },
    param: "messages[1].role",
    message: "Invalid request: `messages[1].role` is required and must be a string.",
  },
  {
    protocol: "chat",
    body: { model: "m", messages: ["hi"] },
    param: "messages[0]",
    message: "Invalid request: `messages[0]` must be an object, got a string.",
  },
  {
    protocol: "chat",
    body: { messages: [user] },
    param: "model",
    message:
      "Invalid request: `model` is required and must be a non-empty string naming the model.",
  },
  {
    protocol: "chat",
    body: { model: "m", messages: [user], stream: "yes" },
    param: "stream",
    message: "Invalid request: `stream` must be a boolean, got a string.",
  },
  {
    protocol: "chat",
    body: { model: "m", messages: [user], max_tokens: -1 },
    param: "max_tokens",
    message: "Invalid request: `max_tokens` must be an integer from 0 to 2147483647, got -1.",
  },
  {
    protocol: "chat",
    body: { model: "m", messages: [user], stream_options: true },
    param: "stream_options",
    message: "Invalid request: `stream_options` must be an object, got true.",
  },
  {
    protocol: "chat",
    body: { model: "m", messages: [user], max_tokens: 1e300 },
    param: "max_tokens",
    message: "Invalid request: `max_tokens` must be an integer from 0 to 2147483647, got 1e+300.",
  },
  {
    protocol: "responses",
    body: { model: "m" },
    param: "input",
    message:
      "Invalid request: `input` is required and must be a string or an array of input items.",
  },
  {
    protocol: "responses",
    body: { model: "m", input: "x", max_output_tokens: 1.5 },
    param: "max_output_tokens",
    message:
      "Invalid request: `max_output_tokens` must be an integer from 0 to 2147483647, got 1.5.",
  },
  {
    protocol: "messages",
    body: { model: "m", messages: [user] },
    param: "max_tokens",
    message:
      "Invalid request: `max_tokens` is required and must be an integer from 1 to 2147483647.",
  },
  {
    protocol: "messages",
    body: { model: "m", messages: [user], max_tokens: 0 },
    param: "max_tokens",
    message: "Invalid request: `max_tokens` must be an integer from 1 to 2147483647, got 0.",
  },
  {
    protocol: "messages",
    body: { model: "m", messages: [user], max_tokens: 5, system: 3 },
    param: "system",
    message: "Invalid request: `system` must be a string or an array of text blocks, got 3.",
  },
  {
    protocol: "messages",
    body: [user],
    message: "Invalid request: the body must be a JSON object, got an array.",
  },
  {
    protocol: "chat",
    body: null,
    message: "Invalid request: the body must be a JSON object, got null.",
  },
];

for (const c of INVALID) {
  Deno.test(`parseEntryRequest rejects (${c.protocol}) ${c.message}`, () => {
    assert.throws(() => protocolOf(c.protocol).parseRequest(c.body, {}), (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.status, 400);
      assert.equal(error.code, "invalid_request");
      assert.equal(error.message, c.message);
      assert.equal(error.param, c.param);
      return true;
    });
  });
}

Deno.test("parseCountTokensRequest reads the model and keeps the body", () => {
  const body = { model: "claude", messages: [user], tools: [] };
  assert.deepEqual(parseCountTokensRequest(body), { model: "claude", body });
});

Deno.test("parseCountTokensRequest rejects a body without messages", () => {
  assert.throws(
    () => parseCountTokensRequest({ model: "claude" }),
    (error: unknown) => error instanceof GatewayError && error.param === "messages",
  );
});
