/**
 * `POST /v1/embeddings` with the official `openai` SDK: relayed to a chat channel's
 * `{base_url}/embeddings` (a fake in OpenAI's exact shape, fakes/embeddings_wire.ts) and
 * answered by the echo channel with deterministic vectors; billed by input tokens at the
 * model's `input_price` to the micro-USD; refused clearly for a model that cannot embed.
 */
import assert from "node:assert/strict";
import { fakeVector } from "./fakes/embeddings_wire.ts";
import { channel, configWith } from "./harness.ts";
import { openaiClient, type Scope, withScope } from "./support.ts";

// 10 USD per million tokens: 10 micro-USD a token, so a cost is read off the token count.
const MODELS = `[models.embed]\ninput_price = 10\noutput_price = 40\n` +
  `[models.echo]\ninput_price = 10\n`;

async function embeddingsGateway(s: Scope, balanceUsd?: string) {
  const fake = await s.fake({ name: "openai" });
  const gateway = await s.gateway(configWith(
    channel({
      name: "openai",
      protocol: "chat",
      baseUrl: fake.url,
      models: ["embed"],
      keys: ["sk-upstream"],
      extra: `model_map = { embed = "text-embedding-3-small" }`,
    }) +
      channel({ name: "echo", protocol: "echo", models: ["echo"] }) +
      channel({ name: "claude", protocol: "messages", baseUrl: fake.url, models: ["claude"] }),
    MODELS,
  ));
  const key = await gateway.createKey(balanceUsd ? { balanceUsd } : {});
  return { fake, gateway, ...key };
}

Deno.test("embeddings: the openai SDK on a chat channel, billed by input tokens to the micro-USD", () =>
  withScope(async (s) => {
    const { fake, gateway, secret, account } = await embeddingsGateway(s, "1");
    const client = openaiClient(gateway, secret);
    const inputs = ["The quick brown fox.", "jumps over the lazy dog"];
    const answer = await client.embeddings.create({ model: "embed", input: inputs, dimensions: 8 });
    assert.equal(answer.object, "list");
    assert.equal(answer.data.length, 2);
    // The SDK asked for base64 and decoded it: the fake's own vectors, as float32.
    answer.data.forEach((item, index) => {
      assert.equal(item.index, index);
      assert.deepEqual(item.embedding, Array.from(fakeVector(inputs[index]!, 8)));
    });
    const sent = fake.requests[0]!;
    assert.equal(sent.path, "/v1/embeddings");
    assert.equal(sent.headers.authorization, "Bearer sk-upstream");
    assert.deepEqual(sent.body, {
      model: "text-embedding-3-small",
      input: inputs,
      dimensions: 8,
      encoding_format: "base64",
    });
    const tokens = answer.usage.prompt_tokens;
    assert.ok(tokens > 0);
    const [row] = await gateway.ledger();
    assert.equal(row?.model, "embed");
    assert.equal(row?.status, "ok");
    assert.equal(row?.input_tokens, tokens);
    assert.equal(row?.output_tokens, 0);
    assert.equal(row?.cost_micros, tokens * 10);
    assert.equal((await gateway.account(account)).balance_micros, 1_000_000 - tokens * 10);

    // An explicit float format and token-id input pass through as given.
    const floats = await client.embeddings.create({
      model: "embed",
      input: [[1, 2, 3], [4, 5]],
      encoding_format: "float",
    });
    assert.equal(floats.data.length, 2);
    assert.equal(floats.data[0]!.embedding.length, 1536);
    assert.equal(floats.usage.prompt_tokens, 5);
    assert.deepEqual((fake.requests[1]!.body as { input: unknown }).input, [[1, 2, 3], [4, 5]]);
    assert.equal((fake.requests[1]!.body as { encoding_format: unknown }).encoding_format, "float");
  }));

Deno.test("embeddings: the echo channel answers deterministic unit vectors, float or base64", () =>
  withScope(async (s) => {
    const { gateway, secret } = await embeddingsGateway(s);
    const client = openaiClient(gateway, secret);
    const first = await client.embeddings.create({ model: "echo", input: ["alpha", "beta"] });
    const again = await client.embeddings.create({
      model: "echo",
      input: "alpha",
      encoding_format: "float",
    });
    const [alpha, beta] = first.data.map((item) => item.embedding);
    assert.equal(alpha!.length, 256);
    assert.deepEqual(again.data[0]!.embedding, alpha);
    assert.notDeepEqual(alpha, beta);
    const norm = Math.sqrt(alpha!.reduce((sum, value) => sum + value * value, 0));
    assert.ok(Math.abs(norm - 1) < 1e-5, String(norm));
    assert.equal(first.usage.prompt_tokens, 2);
    assert.equal(first.model, "echo");
    const small = await client.embeddings.create({ model: "echo", input: "alpha", dimensions: 3 });
    assert.equal(small.data[0]!.embedding.length, 3);
    // Raw base64, as OpenAI's: little-endian float32.
    const raw = await gateway.post("/v1/embeddings", secret, {
      model: "echo",
      input: "alpha",
      encoding_format: "base64",
    });
    const encoded = (await raw.json()).data[0].embedding as string;
    const bytes = Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0));
    assert.deepEqual(Array.from(new Float32Array(bytes.buffer)), alpha);
    const rows = await gateway.ledger();
    assert.equal(rows.length, 4);
    assert.equal(rows[0]?.cost_micros, 2 * 10);
  }));

Deno.test("embeddings: a model that cannot embed is a clear 400; keys and balances apply", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await embeddingsGateway(s, "0");
    const refused = await gateway.post("/v1/embeddings", secret, { model: "claude", input: "hi" });
    const body = await refused.json();
    assert.equal(refused.status, 400);
    assert.equal(body.error.param, "model");
    assert.match(body.error.message, /cannot make embeddings: its channels speak messages/);
    const invalid = await gateway.post("/v1/embeddings", secret, { model: "embed", input: [] });
    assert.equal(invalid.status, 400);
    assert.match((await invalid.json()).error.message, /`input`/);
    const broke = await gateway.post("/v1/embeddings", secret, { model: "embed", input: "hi" });
    assert.equal(broke.status, 403);
    assert.equal((await broke.json()).error.code, "insufficient_user_quota");
    const anonymous = await fetch(`${gateway.baseUrl}/embeddings`, {
      method: "POST",
      body: JSON.stringify({ model: "embed", input: "hi" }),
    });
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    assert.equal(fake.requests.length, 0);
    // Embedding models are listed as any other.
    const listed = await openaiClient(gateway, secret).models.list();
    assert.ok(listed.data.some((model) => model.id === "embed"));
  }));
