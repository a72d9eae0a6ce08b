import assert from "node:assert/strict";
import { testPrincipal } from "../auth/test_support.ts";
import { parseConfig } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { type Attempt, createRouter, MAX_ATTEMPTS } from "./router.ts";

const config = parseConfig({
  groups: { default: { models: ["*"] }, small: { models: ["mini"] } },
  channels: [
    {
      name: "low",
      protocol: "chat",
      base_url: "http://a",
      models: ["mini", "big"],
      priority: 1,
      groups: ["default", "small"],
    },
    {
      name: "high",
      protocol: "chat",
      base_url: "http://b",
      models: ["mini"],
      priority: 5,
      keys: ["k0", "k1", "k2"],
      model_map: { mini: "mini-2025" },
    },
    { name: "claude", protocol: "messages", base_url: "http://c", models: ["sonnet"] },
  ],
});

const principal = testPrincipal;

const drain = (plan: { next(): Attempt | undefined }) => {
  const attempts: Attempt[] = [];
  for (let a = plan.next(); a; a = plan.next()) attempts.push(a);
  return attempts;
};

Deno.test("router: higher priority first, keys rotate, model_map applies", () => {
  const router = createRouter({ now: () => 0 });
  const first = router.plan(config, principal(), "mini", "chat");
  const attempt = first.next()!;
  assert.equal(attempt.channel.name, "high");
  assert.equal(attempt.key, "k0");
  assert.equal(attempt.upstreamModel, "mini-2025");
  const second = router.plan(config, principal(), "mini", "chat").next()!;
  assert.equal(second.key, "k1");
});

Deno.test("router: a rejected key leaves rotation; a failed channel moves on to the next", () => {
  const router = createRouter({ now: () => 0 });
  const plan = router.plan(config, principal(), "mini", "chat");
  const a = plan.next()!;
  plan.fail(a, "key_rejected");
  const b = plan.next()!;
  assert.equal(b.channel.name, "high");
  assert.notEqual(b.key, a.key);
  plan.fail(b, "channel_failed");
  assert.equal(plan.next()!.channel.name, "low");
  const later = drain(router.plan(config, principal(), "mini", "chat"));
  assert.ok(later.every((attempt) => attempt.key !== a.key));
  assert.ok(later.length <= MAX_ATTEMPTS);
});

Deno.test("router: equal priority shares by weight", () => {
  const weighted = parseConfig({
    groups: { default: {} },
    channels: [
      { name: "heavy", protocol: "chat", base_url: "http://a", models: ["m"], weight: 3 },
      { name: "light", protocol: "chat", base_url: "http://b", models: ["m"], weight: 1 },
    ],
  });
  // random() below 3/4 of the total weight picks "heavy" first, above it "light".
  const pick = (r: number) =>
    createRouter({ now: () => 0, random: () => r }).plan(weighted, principal(), "m", "chat").next()!
      .channel.name;
  assert.equal(pick(0.1), "heavy");
  assert.equal(pick(0.74), "heavy");
  assert.equal(pick(0.76), "light");
});

Deno.test("router: restrictions and missing channels are 403 and 503", () => {
  const router = createRouter({ now: () => 0 });
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      assert.ok(error instanceof GatewayError);
      return `${error.status} ${error.code}`;
    }
    return "ok";
  };
  assert.equal(
    code(() => router.plan(config, principal({ models: ["big"] }), "mini", "chat")),
    "403 access_denied",
  );
  assert.equal(
    code(() => router.plan(config, principal({ group: "small" }), "big", "chat")),
    "503 model_not_found",
  );
  assert.deepEqual(router.modelsFor(config, principal({ group: "small" })), ["mini"]);
  assert.deepEqual(router.modelsFor(config, principal({ models: ["big", "nope"] })), ["big"]);
});

Deno.test("router: every channel serves every entry point, its own protocol first at equal priority", () => {
  const mixed = parseConfig({
    groups: { default: {} },
    channels: [
      { name: "claude", protocol: "messages", base_url: "http://a", models: ["m"], weight: 100 },
      { name: "gpt", protocol: "chat", base_url: "http://b", models: ["m"], weight: 1 },
      { name: "backup", protocol: "responses", base_url: "http://c", models: ["m"], priority: -1 },
    ],
  });
  const router = createRouter({ now: () => 0, random: () => 0 });
  const order = (entry: "chat" | "responses" | "messages") =>
    drain(router.plan(mixed, principal(), "m", entry)).map((attempt) => attempt.channel.name);
  // Weight decides only among channels of the same protocol family: chat comes first on chat.
  assert.deepEqual(order("chat"), ["gpt", "claude", "backup"]);
  assert.deepEqual(order("messages"), ["claude", "gpt", "backup"]);
  // A lower priority stays later even when it speaks the entry point's protocol.
  assert.deepEqual(order("responses"), ["claude", "gpt", "backup"]);
  // A model whose only channel speaks another protocol is served, not 503.
  assert.equal(router.plan(config, principal(), "sonnet", "chat").next()!.channel.name, "claude");
});
