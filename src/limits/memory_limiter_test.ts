import assert from "node:assert/strict";
import type { Principal } from "../auth/principal.ts";
import { testPrincipal } from "../auth/test_support.ts";
import { type Config, parseConfig } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import type { Admission, LimitRequest } from "./limiter.ts";
import { UNLIMITED } from "./limiter.ts";
import { createMemoryLimiter } from "./memory_limiter.ts";

const T0 = 1_700_000_000_000;

function principal(id: string, accountId = 1, group = "default"): Principal {
  return testPrincipal({ id, accountId, accountName: `account ${accountId}`, group });
}

function config(groups: Record<string, unknown>, models: Record<string, unknown> = {}): Config {
  return parseConfig({ groups, models });
}

/** A limiter on a clock the test moves. */
function limiterAt(start = T0) {
  const clock = { now: start };
  const limiter = createMemoryLimiter({ now: () => clock.now });
  const take = (request: Partial<LimitRequest> & { config: Config }) =>
    limiter.take({ principal: principal("key_a"), model: "m", inputTokens: 10, ...request });
  return { clock, take };
}

function admitted(taken: Admission | GatewayError): Admission {
  assert.ok(!(taken instanceof GatewayError), `refused: ${(taken as GatewayError).message}`);
  return taken;
}

function refused(taken: Admission | GatewayError) {
  assert.ok(taken instanceof GatewayError, "expected a refusal");
  assert.equal(taken.status, 429);
  assert.equal(taken.code, "rate_limit_exceeded");
  return taken;
}

Deno.test("limiter: a group without limits admits with nothing to count", async () => {
  const { take } = limiterAt();
  const admission = admitted(await take({ config: config({ default: {} }) }));
  assert.equal(admission, UNLIMITED);
  assert.equal(admission.headers, undefined);
});

Deno.test("limiter: rpm refuses with a Retry-After that is honest as time passes", async () => {
  const { clock, take } = limiterAt();
  const limited = config({ default: { rpm: 2 } });
  const first = admitted(await take({ config: limited }));
  assert.deepEqual(first.headers, {
    "x-ratelimit-limit-requests": "2",
    "x-ratelimit-remaining-requests": "1",
    "x-ratelimit-reset-requests": "1m0s",
  });
  clock.now += 15_000;
  assert.equal(
    admitted(await take({ config: limited })).headers?.["x-ratelimit-remaining-requests"],
    "0",
  );
  clock.now += 500;
  const refusal = refused(await take({ config: limited }));
  assert.equal(refusal.headers?.["retry-after"], "45"); // the first request leaves at T0 + 60 s
  assert.equal(refusal.headers?.["x-ratelimit-remaining-requests"], "0");
  assert.equal(refusal.headers?.["x-ratelimit-reset-requests"], "59.5s");
  assert.match(refusal.message, /\[groups\.default\] rpm = 2/);

  clock.now += 44_000; // one second short
  assert.equal(refused(await take({ config: limited })).headers?.["retry-after"], "1");
  clock.now += 500; // T0 + 60 s
  admitted(await take({ config: limited }));
  assert.equal(refused(await take({ config: limited })).headers?.["retry-after"], "15");
});

Deno.test("limiter: concurrency is held until release, however many times it is called", async () => {
  const { take } = limiterAt();
  const limited = config({ default: { concurrency: 2 } });
  const a = admitted(await take({ config: limited }));
  const b = admitted(await take({ config: limited }));
  assert.equal(a.headers, undefined); // no x-ratelimit header speaks of concurrency
  const refusal = refused(await take({ config: limited }));
  assert.equal(refusal.headers?.["retry-after"], "1");
  assert.match(refusal.message, /concurrency = 2/);
  await a.release();
  await a.release();
  const c = admitted(await take({ config: limited }));
  refused(await take({ config: limited }));
  await b.release();
  await c.release();
  admitted(await take({ config: limited }));
});

Deno.test("limiter: tpm counts input at admission and output when settled", async () => {
  const { clock, take } = limiterAt();
  const limited = config({ default: { tpm: 1000 } });
  const first = admitted(await take({ config: limited, inputTokens: 300 }));
  assert.equal(first.headers?.["x-ratelimit-limit-tokens"], "1000");
  assert.equal(first.headers?.["x-ratelimit-remaining-tokens"], "700");
  assert.equal(first.headers?.["x-ratelimit-limit-requests"], undefined);
  clock.now += 10_000;
  await first.settle(500);
  await first.settle(500); // once only
  // 800 used: 200 left.
  admitted(await take({ config: limited, inputTokens: 200 }));
  const refusal = refused(await take({ config: limited, inputTokens: 1 }));
  assert.equal(refusal.headers?.["x-ratelimit-remaining-tokens"], "0");
  // The 300 of T0 leave at T0 + 60 s, which frees enough for 1 token.
  assert.equal(refusal.headers?.["retry-after"], "50");
  assert.match(refusal.message, /\[groups\.default\] tpm = 1000/);
});

Deno.test("limiter: a request larger than the tpm alone is refused without a Retry-After", async () => {
  const { take } = limiterAt();
  const refusal = refused(
    await take({ config: config({ default: { tpm: 100 } }), inputTokens: 101 }),
  );
  assert.equal(refusal.headers?.["retry-after"], undefined);
  assert.match(refusal.message, /about 101 tokens is over \[groups\.default\] tpm = 100/);
});

Deno.test("limiter: account limits count across the account's keys, not other accounts", async () => {
  const { take } = limiterAt();
  const limited = config({ default: { account_rpm: 2 } });
  admitted(await take({ config: limited, principal: principal("key_a", 1) }));
  admitted(await take({ config: limited, principal: principal("key_b", 1) }));
  const refusal = refused(await take({ config: limited, principal: principal("key_c", 1) }));
  assert.match(refusal.message, /account "account 1".*account_rpm = 2/);
  admitted(await take({ config: limited, principal: principal("key_d", 2) }));
});

Deno.test("limiter: model limits count across all keys, per model", async () => {
  const { take } = limiterAt();
  const limited = config({ default: {} }, { m: { rpm: 1 } });
  admitted(await take({ config: limited, principal: principal("key_a", 1) }));
  const refusal = refused(await take({ config: limited, principal: principal("key_b", 2) }));
  assert.match(refusal.message, /model "m".*\[models\."m"\] rpm = 1/);
  admitted(await take({ config: limited, model: "other" }));
});

Deno.test("limiter: a refused request counts nowhere, and headers show the tightest limit", async () => {
  const { take } = limiterAt();
  const limited = config({ default: { rpm: 10, account_rpm: 3, concurrency: 1 } });
  const first = admitted(await take({ config: limited }));
  // The account's 3 is tighter than the key's 10.
  assert.equal(first.headers?.["x-ratelimit-limit-requests"], "3");
  assert.equal(first.headers?.["x-ratelimit-remaining-requests"], "2");
  // Refused by the key's concurrency: the account's rpm does not count it.
  refused(await take({ config: limited }));
  refused(await take({ config: limited }));
  await first.release();
  const second = admitted(await take({ config: limited }));
  assert.equal(second.headers?.["x-ratelimit-remaining-requests"], "1");
});

Deno.test("limiter: counts outlive a config reload; the new limits apply to them", async () => {
  const { take } = limiterAt();
  admitted(await take({ config: config({ default: { rpm: 5 } }) }));
  admitted(await take({ config: config({ default: { rpm: 5 } }) }));
  refused(await take({ config: config({ default: { rpm: 2 } }) }));
  admitted(await take({ config: config({ default: { rpm: 3 } }) }));
});

Deno.test("limiter: requests taken at once cannot both have the last slot", async () => {
  const { take } = limiterAt();
  const limited = config({ default: { concurrency: 1 } });
  const both = await Promise.all([take({ config: limited }), take({ config: limited })]);
  assert.equal(both.filter((taken) => taken instanceof GatewayError).length, 1);
});
