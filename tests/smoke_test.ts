import assert from "node:assert/strict";
import OpenAI from "openai";
import { channel, configWith, startGateway } from "./harness.ts";

Deno.test("harness: echo chat through the OpenAI SDK writes one ledger row", async () => {
  const gateway = await startGateway(
    configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] })),
  );
  try {
    const { secret } = await gateway.createKey();
    const client = new OpenAI({ apiKey: secret, baseURL: gateway.baseUrl });
    const completion = await client.chat.completions.create({
      model: "echo",
      messages: [{ role: "user", content: "ping pong" }],
    });
    assert.equal(completion.choices[0]?.message.content, "ping pong");
    const rows = await gateway.ledger();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.status, "ok");
  } finally {
    await gateway.close();
  }
});
