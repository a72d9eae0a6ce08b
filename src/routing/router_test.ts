import assert from "node:assert/strict";
import { testPrincipal } from "../auth/test_support.ts";
import { type Config, type EntryProtocol, parseConfig } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { type Attempt, createRouter } from "./router.ts";
import { protocolOf } from "../protocols/index.ts";

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
  const first = router.plan(config, principal(), "mini", protocolOf("chat"));
  const attempt = first.next()!;
  assert.equal(attempt.channel.name, "high");
  assert.equal(attempt.key, "k0");
  assert.equal(attempt.upstreamModel, "mini-2025");
  const second = router.plan(config, principal(), "mini", protocolOf("chat")).next()!;
  assert.equal(second.key, "k1");
});

Deno.test("router: a rejected key leaves rotation; a failed channel moves on to the next", () => {
  const router = createRouter({ now: () => 0 });
  const plan = router.plan(config, principal(), "mini", protocolOf("chat"));
  const a = plan.next()!;
  plan.fail(a, "key_rejected");
  const b = plan.next()!;
  assert.equal(b.channel.name, "high");
  assert.notEqual(b.key, a.key);
  plan.fail(b, "channel_failed");
  assert.equal(plan.next()!.channel.name, "low");
  const later = drain(router.plan(config, principal(), "mini", protocolOf("chat")));
  assert.ok(later.every((attempt) => attempt.key !== a.key));
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
    createRouter({ now: () => 0, random: () => r }).plan(
      weighted,
      principal(),
      "m",
      protocolOf("chat"),
    ).next()!
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
    code(() => router.plan(config, principal({ models: ["big"] }), "mini", protocolOf("chat"))),
    "403 access_denied",
  );
  assert.equal(
    code(() => router.plan(config, principal({ group: "small" }), "big", protocolOf("chat"))),
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
    drain(router.plan(mixed, principal(), "m", protocolOf(entry))).map((attempt) =>
      attempt.channel.name
    );
  // Weight decides only among channels of the same protocol family: chat comes first on chat.
  assert.deepEqual(order("chat"), ["gpt", "claude", "backup"]);
  assert.deepEqual(order("messages"), ["claude", "gpt", "backup"]);
  // A lower priority stays later even when it speaks the entry point's protocol.
  assert.deepEqual(order("responses"), ["claude", "gpt", "backup"]);
  // A model whose only channel speaks another protocol is served, not 503.
  assert.equal(
    router.plan(config, principal(), "sonnet", protocolOf("chat")).next()!.channel.name,
    "claude",
  );
});

/** Two chat channels of equal priority for model `m`, two keys each, and a backup. */
const pair = (routing: Record<string, unknown> = {}) =>
  parseConfig({
    routing,
    groups: { default: {} },
    channels: [
      { name: "a", protocol: "chat", base_url: "http://a", models: ["m"], keys: ["a0", "a1"] },
      { name: "b", protocol: "chat", base_url: "http://b", models: ["m"], keys: ["b0", "b1"] },
      { name: "backup", protocol: "chat", base_url: "http://c", models: ["m"], priority: -1 },
    ],
  });

/** A router on a clock the test moves, and a request of conversation `c` served at once. */
function affinityRouter(random = () => 0.5) {
  let now = 0;
  const router = createRouter({ now: () => now, random });
  const serve = (config: Config, conversation?: string, entry: EntryProtocol = "chat") => {
    const plan = router.plan(config, principal(), "m", protocolOf(entry), conversation);
    const attempt = plan.next()!;
    plan.succeed(attempt);
    return { served: `${attempt.channel.name}/${attempt.key}`, affinity: plan.affinity() };
  };
  return { router, serve, advance: (ms: number) => void (now += ms) };
}

Deno.test("router affinity: a conversation sticks to the channel key that served it", () => {
  const config = pair();
  // random() picks each shuffle's order: 0.9 puts "b" first, 0.1 puts "a" first.
  let r = 0.9;
  const { serve } = affinityRouter(() => r);
  assert.deepEqual(serve(config, "c1"), { served: "b/b0", affinity: "none" });
  r = 0.1;
  for (let turn = 0; turn < 3; turn++) {
    assert.deepEqual(serve(config, "c1"), { served: "b/b0", affinity: "hit" });
  }
  // Another conversation is routed as usual, and the key rotation moved on without c1.
  assert.deepEqual(serve(config, "c2"), { served: "a/a0", affinity: "none" });
  assert.deepEqual(serve(config, "c2"), { served: "a/a0", affinity: "hit" });
  assert.deepEqual(serve(config), { served: "a/a1", affinity: "none" });
});

Deno.test("router affinity: a failure moves the conversation, which then sticks to the new key", () => {
  const config = pair();
  const { router, serve } = affinityRouter(() => 0.1);
  assert.equal(serve(config, "c").served, "a/a0");
  const plan = router.plan(config, principal(), "m", protocolOf("chat"), "c");
  const bound = plan.next()!;
  assert.equal(`${bound.channel.name}/${bound.key}`, "a/a0");
  plan.fail(bound, "key_limited");
  const moved = plan.next()!;
  assert.equal(`${moved.channel.name}/${moved.key}`, "a/a1", "the bound channel's next key");
  plan.succeed(moved);
  assert.equal(plan.affinity(), "miss");
  assert.deepEqual(serve(config, "c"), { served: "a/a1", affinity: "hit" });

  const failing = router.plan(config, principal(), "m", protocolOf("chat"), "c");
  failing.fail(failing.next()!, "channel_failed");
  const elsewhere = failing.next()!;
  assert.equal(elsewhere.channel.name, "b");
  failing.succeed(elsewhere);
  assert.deepEqual(serve(config, "c"), { served: `b/${elsewhere.key}`, affinity: "hit" });
});

Deno.test("router affinity: a binding whose key rests or whose channel cools is not followed", () => {
  const config = pair();
  const { router, serve } = affinityRouter(() => 0.1);
  assert.equal(serve(config, "c").served, "a/a0");
  // A turn finds a0 rate limited and gives up: a0 rests, and the next turn goes to a1.
  const limited = router.plan(config, principal(), "m", protocolOf("chat"), "c");
  limited.fail(limited.next()!, "key_limited", 60_000);
  assert.equal(limited.affinity(), "miss");
  assert.deepEqual(serve(config, "c"), { served: "a/a1", affinity: "miss" });
  // Channel "a" says it is overloaded: it cools, and the conversation moves to "b".
  const overloaded = router.plan(config, principal(), "m", protocolOf("chat"), "c");
  overloaded.fail(overloaded.next()!, "channel_overloaded");
  assert.deepEqual(serve(config, "c"), { served: "b/b0", affinity: "miss" });
  assert.deepEqual(serve(config, "c"), { served: "b/b0", affinity: "hit" });
});

Deno.test("router affinity: priority comes first; within a priority the binding beats protocol", () => {
  const config = parseConfig({
    groups: { default: {} },
    channels: [
      { name: "main", protocol: "chat", base_url: "http://a", models: ["m"], priority: 1 },
      { name: "claude", protocol: "messages", base_url: "http://b", models: ["m"] },
      { name: "gpt", protocol: "chat", base_url: "http://c", models: ["m"] },
    ],
  });
  const { router, serve } = affinityRouter(() => 0);
  // The main channel fails once: the conversation is served and bound below it.
  const plan = router.plan(config, principal(), "m", protocolOf("chat"), "c");
  plan.fail(plan.next()!, "channel_failed");
  const served = plan.next()!;
  assert.equal(served.channel.name, "gpt");
  plan.succeed(served);
  // Usable again, the higher priority serves the next turn (and binds it).
  assert.deepEqual(serve(config, "c"), { served: "main/undefined", affinity: "miss" });
  assert.deepEqual(serve(config, "c"), { served: "main/undefined", affinity: "hit" });

  // Without "main", a conversation bound to the messages channel stays there for a chat
  // client, ahead of the chat channel that would otherwise come first.
  const equal = parseConfig({ ...config, channels: config.channels.slice(1) });
  const bind = router.plan(equal, principal(), "m", protocolOf("messages"), "d");
  const claude = bind.next()!;
  assert.equal(claude.channel.name, "claude");
  bind.succeed(claude);
  assert.deepEqual(serve(equal, "d", "chat"), { served: "claude/undefined", affinity: "hit" });
  assert.equal(serve(equal, "e", "chat").served, "gpt/undefined");
});

Deno.test("router affinity: bindings follow the key through a reload; gone means unbound", () => {
  const { serve } = affinityRouter(() => 0.1);
  const before = pair();
  assert.equal(serve(before, "c").served, "a/a0");
  // The reloaded config lists a0 second: the conversation follows the key, not its index.
  const reordered = parseConfig({
    ...before,
    channels: [{ ...before.channels[0], keys: ["a1", "a0"] }, ...before.channels.slice(1)],
  });
  assert.deepEqual(serve(reordered, "c"), { served: "a/a0", affinity: "hit" });
  const withoutKey = parseConfig({
    ...before,
    channels: [{ ...before.channels[0], keys: ["a1"] }, ...before.channels.slice(1)],
  });
  assert.equal(serve(withoutKey, "c").affinity, "miss");
  const withoutChannel = parseConfig({ ...before, channels: before.channels.slice(1) });
  assert.equal(serve(withoutChannel, "c").affinity, "miss");
});

Deno.test("router affinity: bindings expire after affinity_ttl_s idle; each model has its own", () => {
  const config = pair({ affinity_ttl_s: 60 });
  let r = 0.9;
  const { serve, advance } = affinityRouter(() => r);
  assert.equal(serve(config, "c").served, "b/b0");
  r = 0.1;
  advance(60_000);
  assert.deepEqual(serve(config, "c"), { served: "b/b0", affinity: "hit" });
  advance(60_001);
  assert.deepEqual(serve(config, "c"), { served: "a/a0", affinity: "none" });

  const twoModels = parseConfig({
    groups: { default: {} },
    channels: [
      { name: "a", protocol: "chat", base_url: "http://a", models: ["m", "small"] },
      { name: "b", protocol: "chat", base_url: "http://b", models: ["m"] },
    ],
  });
  const router = createRouter({ now: () => 0, random: () => 0.9 });
  const served = (model: string) => {
    const plan = router.plan(twoModels, principal(), model, protocolOf("chat"), "session");
    const attempt = plan.next()!;
    plan.succeed(attempt);
    return `${attempt.channel.name} ${plan.affinity()}`;
  };
  assert.equal(served("m"), "b none");
  assert.equal(served("small"), "a none");
  assert.equal(served("m"), "b hit", "a turn on another model left the binding alone");
});

Deno.test("router affinity: cache_affinity = false routes every turn as a new request", () => {
  const config = pair({ cache_affinity: false });
  let r = 0.9;
  const { serve } = affinityRouter(() => r);
  assert.deepEqual(serve(config, "c"), { served: "b/b0", affinity: "none" });
  r = 0.1;
  assert.deepEqual(serve(config, "c"), { served: "a/a0", affinity: "none" });
});
