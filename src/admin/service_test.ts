import assert from "node:assert/strict";
import { hashKeySecret } from "../auth/keys.ts";
import { GatewayError } from "../errors.ts";
import { settleRequest, withAdmin } from "./test_support.ts";

/** Asserts that `call` fails with a GatewayError of this status, code and param. */
async function refused(
  call: Promise<unknown>,
  expected: { status: number; code: string; param?: string; message?: RegExp },
) {
  const error = await call.then(() => undefined, (error: unknown) => error);
  assert.ok(error instanceof GatewayError, `expected a GatewayError, got ${error}`);
  assert.deepEqual(
    { status: error.status, code: error.code, param: error.param },
    { status: expected.status, code: expected.code, param: expected.param },
  );
  if (expected.message) assert.match(error.message, expected.message);
}

Deno.test("admin accounts: create, top up, disable; a taken name is 409, a bad amount 400", async () => {
  await withAdmin(async ({ admin }) => {
    assert.deepEqual(await admin.accounts.create({ name: " alice ", balance_usd: "2.5" }), {
      name: "alice",
      enabled: true,
      unlimited: false,
      balance_usd: 2.5,
      held_usd: 0,
      available_usd: 2.5,
      budget_usd: null,
      budget_period: null,
      budget_source: null,
      budget_spent_usd: 0,
      budget_renews_at: null,
    });
    assert.equal((await admin.accounts.create({ name: "ops", unlimited: true })).unlimited, true);
    assert.equal((await admin.accounts.topUp("alice", { usd: 0.25 })).balance_usd, 2.75);
    assert.equal((await admin.accounts.update("alice", { enabled: false })).enabled, false);
    assert.deepEqual((await admin.accounts.list()).map((a) => [a.name, a.enabled]), [
      ["alice", false],
      ["ops", true],
    ]);
    await refused(admin.accounts.create({ name: "alice" }), { status: 409, code: "conflict" });
    await refused(admin.accounts.create({ name: "x", balance_usd: 1, unlimited: true }), {
      status: 400,
      code: "invalid_request",
      param: "unlimited",
    });
    await refused(admin.accounts.create({ name: "x", balance_usd: "0.0000001" }), {
      status: 400,
      code: "invalid_request",
      param: "balance_usd",
      message: /more than 6 decimals/,
    });
    await refused(admin.accounts.create({ name: "  " }), {
      status: 400,
      code: "invalid_request",
      param: "name",
    });
    await refused(admin.accounts.topUp("alice", { usd: 0 }), {
      status: 400,
      code: "invalid_request",
      param: "usd",
    });
    await refused(admin.accounts.topUp("nobody", { usd: 1 }), {
      status: 404,
      code: "not_found",
      message: /Topping up account "nobody" failed: there is no such account/,
    });
    await refused(admin.accounts.update("nobody", { enabled: true }), {
      status: 404,
      code: "not_found",
    });
  });
});

Deno.test("admin keys: create with every field, update, clear with null, revoke for good", async () => {
  await withAdmin(async ({ admin, db, clock }) => {
    await admin.accounts.create({ name: "alice", unlimited: true });
    const created = await admin.keys.create({
      account: "alice",
      group: "vip",
      name: "ci",
      quota_tokens: 1000,
      expires_at: "2031-01-01",
      models: ["m", " m "],
      allow_ips: ["10.0.0.0/8", "::1"],
      admin: true,
    });
    assert.match(created.key, /^sk-[0-9A-Za-z]{48}$/);
    assert.deepEqual({ ...created, key: "" }, {
      id: created.id,
      key: "",
      account: "alice",
      group: "vip",
      name: "ci",
      quota_tokens: 1000,
      expires_at: "2031-01-01T00:00:00.000Z",
      warnings: [],
    });
    // Only the hash is stored, and the stores find the key by it with its admin flag.
    const found = await db.store.findKey(hashKeySecret(created.key));
    assert.equal(found?.admin, 1);
    const key = await admin.keys.get(created.id);
    assert.deepEqual(key, {
      id: created.id,
      account: "alice",
      group: "vip",
      name: "ci",
      prefix: created.key.slice(0, 10),
      enabled: true,
      revoked: false,
      expires_at: "2031-01-01T00:00:00.000Z",
      quota_tokens: 1000,
      used_tokens: 0,
      models: ["m"],
      allow_ips: ["10.0.0.0/8", "::1/128"],
      admin: true,
      created_at: new Date(clock.now).toISOString(),
      last_used_at: null,
      budget_usd: null,
      budget_period: null,
      budget_source: null,
      budget_spent_usd: 0,
      budget_renews_at: null,
    });
    const cleared = await admin.keys.update(created.id, {
      name: null,
      group: "default",
      quota_tokens: null,
      expires_at: null,
      models: null,
      allow_ips: null,
      admin: false,
      enabled: false,
    });
    assert.deepEqual(
      [
        cleared.name,
        cleared.group,
        cleared.quota_tokens,
        cleared.expires_at,
        cleared.models,
        cleared.allow_ips,
        cleared.admin,
        cleared.enabled,
      ],
      [null, "default", null, null, null, null, false, false],
    );
    assert.equal((await admin.keys.update(created.id, { enabled: true })).enabled, true);
    // The defaults: group default, nothing restricted, not admin.
    clock.now += 1_000;
    const plain = await admin.keys.create({ account: "alice" });
    assert.deepEqual([plain.group, plain.name, plain.quota_tokens, plain.expires_at], [
      "default",
      null,
      null,
      null,
    ]);
    assert.equal((await admin.keys.get(plain.id)).admin, false);
    assert.deepEqual((await admin.keys.list({ account: "alice" })).map((k) => k.id), [
      created.id,
      plain.id,
    ]);

    const revoked = await admin.keys.revoke(created.id);
    assert.deepEqual([revoked.revoked, revoked.enabled], [true, false]);
    for (const change of [{ enabled: true }, { quota_tokens: 5 }]) {
      await refused(admin.keys.update(created.id, change), {
        status: 409,
        code: "conflict",
        message: /is revoked, which is final/,
      });
    }
    assert.equal((await admin.keys.update(created.id, { enabled: false })).revoked, true);
  });
});

Deno.test("admin keys: unknown keys and accounts are 404, unusable fields 400 naming the field", async () => {
  await withAdmin(async ({ admin }) => {
    await admin.accounts.create({ name: "alice" });
    const { id } = await admin.keys.create({ account: "alice" });
    await refused(admin.keys.create({ account: "nobody" }), { status: 404, code: "not_found" });
    await refused(admin.keys.list({ account: "nobody" }), { status: 404, code: "not_found" });
    for (const missing of [admin.keys.get("key_x"), admin.keys.revoke("key_x")]) {
      await refused(missing, { status: 404, code: "not_found", message: /no such key/ });
    }
    await refused(admin.keys.update("key_x", { name: "x" }), { status: 404, code: "not_found" });
    const invalid: [Record<string, unknown>, string, RegExp][] = [
      [
        { group: "gold" },
        "group",
        /group "gold" is not defined in the config; use one of "default", "vip"/,
      ],
      [{ quota_tokens: 0 }, "quota_tokens", /whole number of tokens above 0/],
      [{ quota_tokens: 1.5 }, "quota_tokens", /whole number/],
      [{ expires_at: "tomorrow" }, "expires_at", /ISO 8601/],
      [{ models: [] }, "models", /non-empty list/],
      [{ models: ["m", ""] }, "models", /none of them empty/],
      [{ allow_ips: ["10.0.0.0/33"] }, "allow_ips", /CIDR/],
      [{ name: "" }, "name", /non-empty name/],
    ];
    for (const [fields, param, message] of invalid) {
      await refused(admin.keys.update(id, fields), {
        status: 400,
        code: "invalid_request",
        param,
        message,
      });
      await refused(admin.keys.create({ account: "alice", ...fields }), {
        status: 400,
        code: "invalid_request",
        param,
      });
    }
  });
});

Deno.test("admin me: a key sees its own record, its account and only its own usage", async () => {
  await withAdmin(async ({ admin, db, clock }) => {
    await admin.accounts.create({ name: "alice", balance_usd: 1 });
    const mine = await admin.keys.create({ account: "alice" });
    const theirs = await admin.keys.create({ account: "alice" });
    const account = (await db.kysely.selectFrom("accounts").select("id").executeTakeFirstOrThrow())
      .id;
    for (const [key, cost] of [[mine.id, 300], [theirs.id, 5]] as const) {
      await settleRequest(db, {
        accountId: account,
        keyId: key,
        createdAt: clock.now + 1_000,
        costMicros: cost,
      });
    }
    const me = await admin.me(mine.id, { since: "2030-01-01", bucket: "day" });
    assert.equal(me.key.id, mine.id);
    assert.equal(me.key.last_used_at, new Date(clock.now + 1_000).toISOString());
    assert.equal(me.account.name, "alice");
    assert.equal(me.account.balance_usd, 1 - 0.000305);
    assert.deepEqual(me.usage.rows.map((row) => [row.key_id, row.cost_usd]), [[mine.id, 0.0003]]);
    assert.deepEqual(me.usage.series?.map((p) => [p.t, p.requests]), [[
      "2030-01-01T00:00:00.000Z",
      1,
    ]]);
    await refused(admin.usage({ bucket: "week" as "day" }), {
      status: 400,
      code: "invalid_request",
      param: "bucket",
    });
    await refused(admin.usage({ account: "nobody" }), {
      status: 404,
      code: "not_found",
      message: /account "nobody" does not exist/,
    });
    await refused(admin.usage({ key: "key_none" }), {
      status: 404,
      code: "not_found",
      message: /key "key_none" does not exist/,
    });
  });
});

Deno.test("admin keys: a model the config does not know is warned about, and the key made or changed all the same", async () => {
  await withAdmin(async ({ admin }) => {
    await admin.accounts.create({ name: "alice", unlimited: true });
    const created = await admin.keys.create({ account: "alice", models: ["m", "mm", "gpt-mni"] });
    assert.deepEqual(created.warnings, [
      'Model "mm" is unknown: no channel in the config serves it and no alias names it, so ' +
      'the key cannot use it; did you mean "m"?',
      'Model "gpt-mni" is unknown: no channel in the config serves it and no alias names it, ' +
      "so the key cannot use it.",
    ]);
    assert.deepEqual((await admin.keys.get(created.id)).models, ["m", "mm", "gpt-mni"]);
    const updated = await admin.keys.update(created.id, { models: ["m"] });
    assert.deepEqual([updated.models, updated.warnings], [["m"], []]);
    assert.deepEqual((await admin.keys.update(created.id, { models: ["n"] })).warnings.length, 1);
    // Only a change of models is judged: another change of the key says nothing of them.
    assert.deepEqual((await admin.keys.update(created.id, { name: "x" })).warnings, []);
  });
});
