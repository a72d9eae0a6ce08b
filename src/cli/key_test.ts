import assert from "node:assert/strict";
import { hashKeySecret } from "../auth/keys.ts";
import { openDatabase } from "../db/database.ts";
import { type CliHarness, settleRequest, withCli } from "./test_harness.ts";

async function createKey(cli: CliHarness, ...extra: string[]) {
  const run = await cli.run(["key", "create", "--account", "alice", "--json", ...extra]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

Deno.test("key create --json prints one object and stores only the hash", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice", "--balance", "5"]);
    const run = await cli.run([
      "key",
      "create",
      "--account",
      "alice",
      "--name",
      "laptop",
      "--quota",
      "100000",
      "--expires",
      "2030-01-31T12:00:00Z",
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const created = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(created), [
      "id",
      "key",
      "account",
      "group",
      "name",
      "quota_tokens",
      "expires_at",
    ]);
    assert.match(created.id, /^key_[0-9A-Za-z]{12}$/);
    assert.match(created.key, /^sk-[0-9A-Za-z]{48}$/);
    assert.equal(created.account, "alice");
    assert.equal(created.group, "default");
    assert.equal(created.name, "laptop");
    assert.equal(created.quota_tokens, 100000);
    assert.equal(created.expires_at, "2030-01-31T12:00:00.000Z");

    const db = await openDatabase(`file:${cli.dbPath}`);
    try {
      const stored = await db.store.findKey(hashKeySecret(created.key));
      assert.equal(stored?.id, created.id);
      assert.equal(stored?.prefix, created.key.slice(0, 10));
    } finally {
      await db.close();
    }
    // The secret must not be anywhere in the database files (main file, WAL or journal),
    // while its hash is: that shows the scan reads where the row went.
    let stored = "";
    for await (const entry of Deno.readDir(cli.dir)) {
      if (!entry.name.startsWith("tollgate.db")) continue;
      stored += new TextDecoder("latin1").decode(await Deno.readFile(`${cli.dir}/${entry.name}`));
    }
    assert.ok(stored.includes(hashKeySecret(created.key)), "hash not found in the files");
    assert.equal(stored.includes(created.key.slice(3)), false, "secret found in the database");
  });
});

Deno.test("key create defaults: group default, nulls for what was not given", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice"]);
    const created = await createKey(cli);
    assert.equal(created.group, "default");
    assert.equal(created.name, null);
    assert.equal(created.quota_tokens, null);
    assert.equal(created.expires_at, null);

    const human = await cli.run(["key", "create", "--account", "alice", "--group", "vip"]);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /^Created key key_\w{12} for account "alice" in group "vip"\./);
    assert.match(human.stdout, /\n {2}sk-[0-9A-Za-z]{48}$/);
  });
});

Deno.test("key create accepts a past --expires and list shows it expired", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice"]);
    const created = await createKey(cli, "--expires", "2001-02-03");
    assert.equal(created.expires_at, "2001-02-03T00:00:00.000Z");
    const list = await cli.run(["key", "list"]);
    assert.match(list.stdout, /\bexpired\b/);
  });
});

Deno.test("key list --json fields, models and allow_ips as arrays", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice"]);
    await cli.run(["account", "create", "bob"]);
    const a = await createKey(
      cli,
      "--models",
      "echo, gpt-4o-mini",
      "--allow-ip",
      "10.0.0.0/8,192.168.1.7,2001:db8::/32",
    );
    const b = await cli.run(["key", "create", "--account", "bob", "--json"]);
    const bId = JSON.parse(b.stdout).id;

    const all = await cli.run(["key", "list", "--json"]);
    assert.equal(all.code, 0);
    const keys = JSON.parse(all.stdout);
    assert.equal(keys.length, 2);
    const first = keys.find((key: { id: string }) => key.id === a.id);
    assert.deepEqual(first, {
      id: a.id,
      account: "alice",
      group: "default",
      name: null,
      prefix: (a.key as string).slice(0, 10),
      enabled: true,
      revoked: false,
      expires_at: null,
      quota_tokens: null,
      used_tokens: 0,
      models: ["echo", "gpt-4o-mini"],
      allow_ips: ["10.0.0.0/8", "192.168.1.7/32", "2001:db8::/32"],
      admin: false,
      created_at: first.created_at,
      last_used_at: null,
      budget_usd: null,
      budget_period: null,
      budget_source: null,
      budget_spent_usd: 0,
      budget_renews_at: null,
    });
    assert.equal(keys.find((key: { id: string }) => key.id === bId).models, null);

    const bobs = JSON.parse((await cli.run(["key", "list", "--account", "bob", "--json"])).stdout);
    assert.deepEqual(bobs.map((key: { id: string }) => key.id), [bId]);
    assert.equal(JSON.stringify(keys).includes(a.key as string), false, "list never shows secrets");
  });
});

Deno.test("a revoked key cannot be enabled (exit 1)", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice"]);
    const { id } = await createKey(cli) as { id: string };
    assert.equal((await cli.run(["key", "disable", id])).code, 0);
    assert.equal((await cli.run(["key", "enable", id])).code, 0);
    const revoke = await cli.run(["key", "revoke", id]);
    assert.equal(revoke.code, 0);
    assert.equal(revoke.stdout, `Revoked key ${id}.`);

    const enable = await cli.run(["key", "enable", id]);
    assert.equal(enable.code, 1);
    assert.equal(enable.stdout, "");
    assert.equal(
      enable.stderr,
      `tollgate: Enabling key "${id}" failed: the key is revoked, which is final; create a new key instead.`,
    );
    const [listed] = JSON.parse((await cli.run(["key", "list", "--json"])).stdout);
    assert.equal(listed.revoked, true);
    assert.equal(listed.enabled, false);
  });
});

Deno.test("key user errors exit 1", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice"]);
    for (
      const args of [
        ["key", "create", "--account", "nobody"],
        ["key", "create", "--account", "alice", "--group", "gold"],
        ["key", "list", "--account", "nobody"],
        ["key", "disable", "key_nope"],
        ["key", "enable", "key_nope"],
        ["key", "revoke", "key_nope"],
      ]
    ) {
      const run = await cli.run(args);
      assert.equal(run.code, 1, args.join(" "));
      assert.equal(run.stderr.split("\n").length, 1, run.stderr);
    }
    const gold = await cli.run(["key", "create", "--account", "alice", "--group", "gold"]);
    assert.match(
      gold.stderr,
      /group "gold" is not defined in ".*config\.toml"; use one of "default", "vip"/,
    );
  });
});

Deno.test("key bad usage exits 2", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice"]);
    for (
      const args of [
        ["key"],
        ["key", "create"],
        ["key", "create", "--account"],
        ["key", "create", "--account", "alice", "--quota", "-1"],
        ["key", "create", "--account", "alice", "--quota", "1.5"],
        ["key", "create", "--account", "alice", "--expires", "tomorrow"],
        ["key", "create", "--account", "alice", "--expires", "2030-13-45"],
        ["key", "create", "--account", "alice", "--allow-ip", "10.0.0.0/33"],
        ["key", "create", "--account", "alice", "--allow-ip", "300.1.1.1"],
        ["key", "create", "--account", "alice", "--models", "a,,b"],
        ["key", "create", "--account", "alice", "--bogus"],
        ["key", "revoke"],
        ["key", "revoke", "a", "b"],
      ]
    ) {
      const run = await cli.run(args);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, /\nUsage:\n/);
    }
    assert.equal(JSON.parse((await cli.run(["key", "list", "--json"])).stdout).length, 0);
  });
});

Deno.test("key update changes each field; never, all, any and none clear a limit", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice"]);
    const { id } = await createKey(cli) as { id: string };
    const listed = async () =>
      (JSON.parse((await cli.run(["key", "list", "--json"])).stdout) as Record<string, unknown>[])
        .find((key) => key.id === id)!;
    const run = await cli.run([
      "key",
      "update",
      id,
      "--name",
      "ci",
      "--group",
      "vip",
      "--quota",
      "5000",
      "--expires",
      "2031-05-06T07:08:09Z",
      "--models",
      "echo,other",
      "--allow-ip",
      "10.1.0.0/16,::1",
      "--admin",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `Updated key ${id}.`);
    const updated = await listed();
    assert.deepEqual(
      [
        updated.name,
        updated.group,
        updated.quota_tokens,
        updated.expires_at,
        updated.models,
        updated.allow_ips,
        updated.admin,
      ],
      ["ci", "vip", 5000, "2031-05-06T07:08:09.000Z", ["echo", "other"], [
        "10.1.0.0/16",
        "::1/128",
      ], true],
    );
    const cleared = await cli.run([
      "key",
      "update",
      id,
      "--quota",
      "none",
      "--expires",
      "never",
      "--models",
      "all",
      "--allow-ip",
      "any",
      "--no-admin",
      "--json",
    ]);
    assert.equal(cleared.code, 0, cleared.stderr);
    const json = JSON.parse(cleared.stdout);
    assert.deepEqual(json, await listed(), "--json prints the key as key list does");
    assert.deepEqual(
      [json.name, json.group, json.quota_tokens, json.expires_at, json.models, json.allow_ips],
      ["ci", "vip", null, null, null, null],
    );
    assert.equal(json.admin, false);
  });
});

Deno.test("key update: unknown or revoked keys and unknown groups exit 1; nothing to change exits 2", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice"]);
    const { id } = await createKey(cli) as { id: string };
    const gold = await cli.run(["key", "update", id, "--group", "gold"]);
    assert.equal(gold.code, 1);
    assert.match(gold.stderr, /group "gold" is not defined in ".*config\.toml"/);
    const nobody = await cli.run(["key", "update", "key_nope", "--name", "x"]);
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /^tollgate: Updating key "key_nope" failed: there is no such key/);
    for (
      const args of [
        ["key", "update", id],
        ["key", "update", id, "--admin", "--no-admin"],
        ["key", "update", id, "--quota", "0"],
        ["key", "update", id, "--expires", "soon"],
        ["key", "update", id, "--allow-ip", "10.0.0.0/40"],
        ["key", "update", "--name", "x"],
      ]
    ) {
      const usage = await cli.run(args);
      assert.equal(usage.code, 2, `${args.join(" ")}: ${usage.stderr}`);
      assert.match(usage.stderr, /\nUsage:\n {2}tollgate key update/);
    }
    assert.equal((await cli.run(["key", "revoke", id])).code, 0);
    const revoked = await cli.run(["key", "update", id, "--quota", "10"]);
    assert.equal(revoked.code, 1);
    assert.equal(
      revoked.stderr,
      `tollgate: Updating key "${id}" failed: the key is revoked, which is final; create a new key instead.`,
    );
    // Disabling a revoked key again is harmless.
    assert.equal((await cli.run(["key", "disable", id])).code, 0);
  });
});

Deno.test("key create --admin; key list shows when each key was made and last used", async () => {
  await withCli(async (cli) => {
    const made = Date.parse("2030-03-01T10:00:00Z");
    const now = () => made;
    await cli.run(["account", "create", "alice"], { now });
    const admin = await cli.run(["key", "create", "--account", "alice", "--admin", "--json"], {
      now,
    });
    const adminId = JSON.parse(admin.stdout).id;
    const other = JSON.parse(
      (await cli.run(["key", "create", "--account", "alice", "--json"], { now })).stdout,
    ).id;
    // Two settlements, the later first: the last use is the latest, failed ones included.
    await settleRequest(
      cli.dbPath,
      { account: 1, key: adminId, model: "echo", at: made + 7_000, cost: 1, status: "failed" },
      { account: 1, key: adminId, model: "echo", at: made + 5_000, cost: 1 },
    );
    const keys = JSON.parse((await cli.run(["key", "list", "--json"])).stdout);
    const byId = new Map(keys.map((key: { id: string }) => [key.id, key]));
    assert.deepEqual(
      [adminId, other].map((id) => {
        const key = byId.get(id) as Record<string, unknown>;
        return [key.admin, key.created_at, key.last_used_at];
      }),
      [
        [true, "2030-03-01T10:00:00.000Z", "2030-03-01T10:00:07.000Z"],
        [false, "2030-03-01T10:00:00.000Z", null],
      ],
    );
    const table = await cli.run(["key", "list"]);
    assert.match(table.stdout, /\bADMIN\s+EXPIRES\b.*\bCREATED\s+LAST_USED$/m);
    assert.match(table.stdout, /\byes\b.*2030-03-01T10:00:07\.000Z$/m);
    assert.match(table.stdout, /\bno\b.*\bnever$/m);
  });
});

Deno.test("key create and update warn on stderr of a model the config does not know, and succeed", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice", "--balance", "5"]);
    const made = await cli.run([
      "key",
      "create",
      "--account",
      "alice",
      "--models",
      "ecko",
      "--json",
    ]);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(
      made.stderr,
      'Warning: Model "ecko" is unknown: no channel in "' + cli.configPath +
        '" serves it and no alias names it, so the key cannot use it; did you mean "echo"?',
    );
    const created = JSON.parse(made.stdout);
    assert.equal(created.warnings, undefined, "stdout keeps the --json shape");
    const changed = await cli.run(["key", "update", created.id, "--models", "echo,gpt-mni"]);
    assert.equal(changed.code, 0, changed.stderr);
    assert.match(changed.stderr, /^Warning: Model "gpt-mni" is unknown: .*cannot use it\.$/);
    assert.equal((await cli.run(["key", "update", created.id, "--models", "echo"])).stderr, "");
  });
});
