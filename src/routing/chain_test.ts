/** The chain of models a request may be served by: fallbacks, aliases, rescues and probes. */
import assert from "node:assert/strict";
import { testPrincipal } from "../auth/test_support.ts";
import { parseConfig } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { type Attempt, createRouter, type RoutePlan } from "./router.ts";
import { protocolOf } from "../protocols/index.ts";

const config = parseConfig({
  groups: { default: { models: ["*"] }, coders: { models: ["coder"] } },
  failover: { cooldown_ms: 1_000 },
  models: {
    "gpt-5": { fallbacks: ["claude"], context_window: 1_000 },
    claude: { context_window: 200_000, prefill: true },
    coder: { fallbacks: ["claude", "gpt-5"] },
  },
  channels: [
    {
      name: "openai",
      protocol: "chat",
      base_url: "http://a",
      models: ["gpt-5"],
      groups: ["default", "coders"],
    },
    {
      name: "azure",
      protocol: "chat",
      base_url: "http://b",
      models: ["gpt-5"],
      groups: ["default", "coders"],
      priority: -1,
    },
    {
      name: "anthropic",
      protocol: "messages",
      base_url: "http://c",
      models: ["claude"],
      groups: ["default", "coders"],
    },
    {
      name: "bedrock",
      protocol: "messages",
      base_url: "http://d",
      models: ["claude"],
      groups: ["default", "coders"],
      priority: -1,
      prefill: false,
    },
  ],
});

const served = (attempt: Attempt | undefined) =>
  attempt && `${attempt.model}@${attempt.channel.name}`;

function drain(plan: RoutePlan): string[] {
  const out: string[] = [];
  for (let attempt = plan.next(); attempt; attempt = plan.next()) {
    out.push(served(attempt)!);
    // Every attempt fails as a channel does, so the plan moves on to the next channel.
    plan.fail(attempt, "channel_failed");
  }
  return out;
}

Deno.test("chain: a model's channels come first, then its fallbacks' channels, in order", () => {
  const router = createRouter({ now: () => 0 });
  const plan = router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat"));
  assert.deepEqual(plan.models, ["gpt-5", "claude"]);
  assert.deepEqual(drain(plan), [
    "gpt-5@openai",
    "gpt-5@azure",
    "claude@anthropic",
    "claude@bedrock",
  ]);
});

Deno.test("chain: an alias is its fallbacks alone, listed by the model list, allowed by a group that names it", () => {
  const router = createRouter({ now: () => 0 });
  const coder = testPrincipal({ group: "coders" });
  assert.deepEqual(router.modelsFor(config, coder), ["coder"]);
  assert.deepEqual(router.modelsFor(config, testPrincipal()), ["claude", "coder", "gpt-5"]);
  const plan = router.plan(config, coder, "coder", protocolOf("chat"));
  assert.deepEqual(plan.models, ["claude", "gpt-5"]);
  assert.equal(served(plan.next()), "claude@anthropic");
  // The group lists only the alias: the models of its chain are not asked for by name.
  assert.throws(
    () => router.plan(config, coder, "claude", protocolOf("chat")),
    (error) => error instanceof GatewayError && error.code === "model_not_found",
  );
});

Deno.test("chain: a key restricted to an alias may use its chain through it, and nothing else", () => {
  const router = createRouter({ now: () => 0 });
  const key = testPrincipal({ models: ["coder"] });
  assert.equal(
    served(router.plan(config, key, "coder", protocolOf("chat")).next()),
    "claude@anthropic",
  );
  assert.throws(
    () => router.plan(config, key, "gpt-5", protocolOf("chat")),
    (error) => error instanceof GatewayError && error.status === 403,
  );
});

Deno.test("chain: models left out (too small a window) are never tried", () => {
  const router = createRouter({ now: () => 0 });
  const plan = router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat"));
  plan.keepModels((model) => model !== "gpt-5");
  assert.deepEqual(drain(plan), ["claude@anthropic", "claude@bedrock"]);
});

Deno.test("chain: skipping a model leaves its other channels for the next model's", () => {
  const router = createRouter({ now: () => 0 });
  const plan = router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat"));
  assert.equal(served(plan.next()), "gpt-5@openai");
  plan.skipModel();
  assert.equal(served(plan.next()), "claude@anthropic");
});

Deno.test("chain: rescues go to the model's other channels, then its own, then later models, where a prefill is taken", () => {
  const router = createRouter({ now: () => 0 });
  const plan = router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat"));
  const first = plan.next()!;
  const everyone = plan.rescues(first, () => true).map(served);
  assert.deepEqual(everyone, [
    "gpt-5@azure",
    "gpt-5@openai",
    "claude@anthropic",
    "claude@bedrock",
  ]);
  const prefilling = plan.rescues(
    first,
    (channel, model) => channel.prefill ?? config.models[model]?.prefill ?? false,
  ).map(served);
  assert.deepEqual(prefilling, ["claude@anthropic"]);
});

Deno.test("chain: a channel that failed three times cools, then one request probes it while others keep away", () => {
  let now = 0;
  const router = createRouter({ now: () => now });
  const fail = () => {
    const plan = router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat"));
    const attempt = plan.next()!;
    assert.equal(attempt.channel.name, "openai");
    plan.fail(attempt, "channel_failed");
  };
  fail();
  fail();
  assert.equal(stateOf(router, "openai"), "failing");
  fail();
  assert.equal(stateOf(router, "openai"), "cooling");
  // Cooling: the channel is tried last, after its model's others.
  assert.equal(
    served(router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat")).next()),
    "gpt-5@azure",
  );

  now += 1_000;
  const probe = router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat"));
  const probing = probe.next()!;
  assert.equal(probing.channel.name, "openai", "the first request after the cool-down probes");
  assert.equal(stateOf(router, "openai"), "probing");
  assert.equal(
    served(router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat")).next()),
    "gpt-5@azure",
    "while the probe is out, others keep to the other channels",
  );
  probe.fail(probing, "channel_failed");
  assert.equal(stateOf(router, "openai"), "cooling", "a failed probe cools the channel again");

  now += 1_000;
  const second = router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat"));
  const again = second.next()!;
  assert.equal(again.channel.name, "openai");
  second.succeed(again);
  assert.equal(stateOf(router, "openai"), "up");
  assert.equal(
    served(router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat")).next()),
    "gpt-5@openai",
  );
});

Deno.test("chain: a probe whose request ended without an answer lets the next request probe", () => {
  let now = 0;
  const router = createRouter({ now: () => now });
  for (let i = 0; i < 3; i++) {
    const plan = router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat"));
    plan.fail(plan.next()!, "channel_failed");
  }
  now += 1_000;
  const left = router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat"));
  left.release(left.next()!);
  assert.equal(
    served(router.plan(config, testPrincipal(), "gpt-5", protocolOf("chat")).next()),
    "gpt-5@openai",
  );
});

function stateOf(router: ReturnType<typeof createRouter>, channel: string) {
  return router.channelStates(config).find((state) => state.channel === channel)?.state;
}
