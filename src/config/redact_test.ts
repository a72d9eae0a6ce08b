import assert from "node:assert/strict";
import { parseConfig } from "./schema.ts";
import { REDACTED, redactorOf, secretsOf } from "./redact.ts";

const config = parseConfig({
  server: { metrics_token: "metrics-token-123456" },
  groups: { default: { models: ["*"] } },
  channels: [{
    name: "a",
    protocol: "chat",
    base_url: "https://api.example.com/v1",
    models: ["m"],
    keys: ["sk-abcdef123456", "sk-abcdef123456-longer"],
    headers: { authorization: "Bearer tok-98765432", "x-short": "abc" },
  }],
});

Deno.test("redact: every secret of the config, the longest first; short values left alone", () => {
  assert.deepEqual(secretsOf(config), [
    "sk-abcdef123456-longer",
    "metrics-token-123456",
    "Bearer tok-98765432",
    "sk-abcdef123456",
    "tok-98765432",
  ]);
  const redact = redactorOf(config);
  assert.equal(
    redact("key sk-abcdef123456-longer and sk-abcdef123456, token tok-98765432, abc"),
    `key ${REDACTED} and ${REDACTED}, token ${REDACTED}, abc`,
  );
  assert.equal(redactorOf(config), redact, "made once per config");
  assert.equal(redact("nothing here"), "nothing here");
});
