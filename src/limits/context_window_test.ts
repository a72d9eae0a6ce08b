import assert from "node:assert/strict";
import type { ModelConfig } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { protocolOf } from "../protocols/index.ts";
import { countTokens } from "gpt-tokenizer";
import { ordinaryTexts } from "../../tests/token_texts.ts";
import { checkContextWindow } from "./context_window.ts";

/** Checks a body of the given protocol against a model's config. */
function check(
  protocol: "chat" | "responses" | "messages",
  body: Record<string, unknown>,
  model: ModelConfig | undefined,
) {
  const request = protocolOf(protocol).parseRequest(body, {});
  return checkContextWindow({
    request,
    model,
    bodyBytes: new TextEncoder().encode(JSON.stringify(body)).byteLength,
  });
}

async function refusal(run: () => unknown): Promise<GatewayError> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.status, 400);
    assert.equal(error.code, "context_length_exceeded");
    return error;
  }
  assert.fail("expected a context_length_exceeded refusal");
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 10}`).join(" ");

Deno.test("context window: a model without one is not checked", async () => {
  const body = { model: "m", messages: [{ role: "user", content: words(5000) }] };
  assert.equal(await check("chat", body, undefined), undefined);
  assert.equal(await check("chat", body, { max_output_tokens: 10 }), undefined);
});

Deno.test("context window: a body smaller than the window is not tokenized", async () => {
  const body = { model: "m", messages: [{ role: "user", content: "hello" }], max_tokens: 100 };
  // Nothing counted: a count would be returned.
  assert.equal(await check("chat", body, { context_window: 1000 }), undefined);
});

Deno.test("context window: a long body that fits is counted, and the count returned", async () => {
  // "word0 word1 ..." is two tokens a word: 400 words in ~2,400 bytes is ~800 tokens.
  const body = { model: "m", input: words(400), max_output_tokens: 100 };
  const counted = await check("responses", body, { context_window: 2000 });
  assert.ok(counted !== undefined && counted > 400 && counted + 100 <= 2000, `${counted}`);
});

Deno.test("context window: input over the window is refused with both numbers", async () => {
  const body = { model: "m", max_tokens: 100, messages: [{ role: "user", content: words(5000) }] };
  const error = await refusal(() => check("messages", body, { context_window: 1000 }));
  assert.match(error.message, /about \d{4,} input tokens plus 100 requested output tokens/);
  assert.match(error.message, /context window of 1000/);
  assert.match(error.message, /max_tokens/);
});

Deno.test("context window: requested output alone can overflow it", async () => {
  const body = { model: "m", input: "hi", max_output_tokens: 5000 };
  const error = await refusal(() => check("responses", body, { context_window: 1000 }));
  assert.match(error.message, /plus 5000 requested output tokens/);
  assert.equal(error.param, "input");
});

Deno.test("context window: with no max output the model's max_output_tokens is asked for", async () => {
  const body = { model: "m", messages: [{ role: "user", content: "a short question" }] };
  const model = { context_window: 1000, max_output_tokens: 999 };
  const error = await refusal(() => check("chat", body, model));
  assert.match(error.message, /the model's max_output_tokens of 999/);
  assert.match(error.message, /context window of 1000/);
  // The client's own cap wins over the model's.
  assert.equal(typeof await check("chat", { ...body, max_tokens: 100 }, model), "undefined");
});

Deno.test("context window: a long ordinary prompt that just fits is not refused", async () => {
  // Megabytes of prose, code and JSON: estimated, not counted whole, and never over.
  const text = ordinaryTexts().mixed;
  const exact = countTokens(text, { disallowedSpecial: new Set() });
  const body = { model: "m", max_tokens: 1000, messages: [{ role: "user", content: text }] };
  const counted = await check("chat", body, { context_window: exact + 1000 });
  assert.ok(counted !== undefined && counted <= exact && counted >= exact * 0.98, `${counted}`);
});
