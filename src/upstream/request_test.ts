import assert from "node:assert/strict";
import { GatewayError } from "../errors.ts";
import type { ChannelConfig } from "../config/schema.ts";
import {
  checkForwardedHeaders,
  requestTemplate,
  requestTemplates,
  upstreamRequest,
} from "./request.ts";

/** Whether `error` is the 400 naming header `name`. */
const refusedNaming = (name: string, character: string) => (error: unknown) => {
  assert.ok(error instanceof GatewayError, String(error));
  assert.equal(error.status, 400);
  assert.equal(error.code, "invalid_request");
  assert.ok(error.message.includes(`Header "${name}"`), error.message);
  assert.ok(error.message.includes(character), error.message);
  return true;
};

Deno.test("forwarded headers: a value with a control or non-ASCII character is the client's 400, naming the header", () => {
  for (
    const [name, value, character] of [
      ["anthropic-version", "2023-06-01\u0001", "U+0001"],
      ["anthropic-version", "2023-06-01\u00e9", "U+00E9"],
      ["anthropic-beta", "tools-2024\u001b[2K", "U+001B"],
      ["anthropic-beta", "a\u007f", "U+007F"],
      ["openai-beta", "assistants=v2\u2028", "U+2028"],
      ["openai-beta", "x\u{1f600}", "U+1F600"],
    ] as const
  ) {
    // A Map by lowercase name (the current server) and a Headers object (Deno.serve's).
    assert.throws(
      () => checkForwardedHeaders(new Map([[name, value]])),
      refusedNaming(name, character),
    );
    const headers = new Headers();
    // Headers refuses what is not a byte string: a character past U+00FF cannot arrive so.
    if ([...value].every((char) => char.codePointAt(0)! <= 0xff)) {
      headers.set(name, value);
      assert.throws(() => checkForwardedHeaders(headers), refusedNaming(name, character));
    }
  }
});

Deno.test("forwarded headers: ASCII values, blanks inside them, absent and empty headers pass; others are not looked at", () => {
  checkForwardedHeaders(new Map());
  checkForwardedHeaders(
    new Headers({
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "prompt-caching-2024-07-31, tools\t2024",
      "openai-beta": "",
      "x-other": "caf\u00e9",
    }),
  );
  checkForwardedHeaders(new Map([["user-agent", "\u0001"]]));
});

Deno.test("forwarded headers: an upstream request refuses such a value too, before anything is sent", () => {
  const channel = {
    name: "anthropic",
    protocol: "messages",
    base_url: "http://127.0.0.1:1/v1",
    headers: {},
  } as unknown as ChannelConfig;
  const template = requestTemplate({
    channel,
    operation: "answer",
    key: "sk-test",
    model: "m",
    stream: false,
  });
  const request = (value: string) =>
    upstreamRequest(template, {
      body: { model: "m" },
      clientHeaders: new Map([["anthropic-version", value]]),
      search: "",
    });
  assert.equal(request("2023-06-01").own?.["anthropic-version"], "2023-06-01");
  assert.throws(() => request("2023-06-01\u00e9"), refusedNaming("anthropic-version", "U+00E9"));
});

Deno.test("request templates: a protocol whose path names the model has a template per model", () => {
  // Gemini is no channel protocol of the config yet; its wire is what the template reads.
  const channel = {
    name: "google",
    protocol: "gemini",
    base_url: "https://generativelanguage.googleapis.com/v1beta/",
    headers: {},
  } as unknown as ChannelConfig;
  const templateOf = requestTemplates();
  const call = { channel, operation: "answer" as const, key: "AIza-test", stream: true };
  const flash = templateOf({ ...call, model: "gemini-2.5-flash" });
  const pro = templateOf({ ...call, model: "gemini-2.5-pro" });
  assert.equal(
    flash.url,
    "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
  );
  assert.equal(
    pro.url,
    "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
  );
  assert.equal(templateOf({ ...call, model: "gemini-2.5-flash" }), flash, "made once a model");
  assert.equal(flash.headers["x-goog-api-key"], "AIza-test");
  assert.equal(flash.headers.authorization, undefined);
  const counted = templateOf({ ...call, operation: "count_tokens", model: "gemini-2.5-flash" });
  assert.ok(counted.url.endsWith("/models/gemini-2.5-flash:countTokens"), counted.url);
  // The client's query (which may hold its tollgate key as `?key=`) never goes along.
  const request = upstreamRequest(flash, {
    body: { contents: [] },
    clientHeaders: new Headers(),
    search: "?key=sk-client",
  });
  assert.equal(request.url, flash.url);
});

Deno.test("request templates: a protocol whose path does not name the model shares one", () => {
  const channel = {
    name: "openai",
    protocol: "chat",
    base_url: "http://127.0.0.1:1/v1",
    headers: {},
  } as unknown as ChannelConfig;
  const templateOf = requestTemplates();
  const call = { channel, operation: "answer" as const, key: "sk-up", stream: false };
  const first = templateOf({ ...call, model: "a" });
  assert.equal(templateOf({ ...call, model: "b" }), first);
  assert.equal(first.url, "http://127.0.0.1:1/v1/chat/completions");
  assert.equal(first.headers.authorization, "Bearer sk-up");
});
