/**
 * The dashboard's sessions over real HTTP: signing in sets an HttpOnly, SameSite=Strict
 * cookie for /admin (Secure behind a TLS proxy), whose token only the database's hash knows;
 * a change sent with the cookie from another origin is refused; sessions end when idle, when
 * old, at sign-out, and the moment their key may no longer be used; on PostgreSQL every node
 * knows every session.
 */
import assert from "node:assert/strict";
import { hashKeySecret } from "../src/auth/keys.ts";
import { KEY_CACHE_TTL_MS } from "../src/auth/key_cache.ts";
import { SESSION_IDLE_MS, SESSION_MAX_AGE_MS } from "../src/admin/sessions.ts";
import { adminFetch, adminJson, cli, signIn } from "./admin_support.ts";
import { channel, configWith, startGateway, type TestGateway } from "./harness.ts";
import { startPostgres } from "./postgres.ts";
import { assertOpenAiError, replaceConfig } from "./support.ts";

const CONFIG = configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] }));

/** Runs `test` with a gateway whose clock the test moves. */
async function withClockedGateway(
  test: (gateway: TestGateway, clock: { now: number }) => Promise<void>,
  toml = CONFIG,
): Promise<void> {
  const clock = { now: Date.now() };
  const gateway = await startGateway(toml, { now: () => clock.now });
  try {
    await test(gateway, clock);
  } finally {
    await gateway.close();
  }
}

/** The number of stored sessions. */
async function sessionCount(gateway: TestGateway): Promise<number> {
  return (await gateway.db.kysely.selectFrom("sessions").select("token_hash").execute()).length;
}

Deno.test("sessions: signing in sets an HttpOnly SameSite=Strict cookie for /admin; only its hash is stored", async () => {
  await withClockedGateway(async (gateway) => {
    const admin = gateway.server.firstKey!;
    const { cookie, attributes, location } = await signIn(gateway, admin);
    assert.equal(location, "/admin/keys", "back to the page asked for");
    assert.deepEqual(
      attributes.filter((attribute) => !attribute.startsWith("Max-Age")).sort(),
      ["HttpOnly", "Path=/admin", "SameSite=Strict"],
      "no Secure over plain HTTP",
    );
    assert.ok(attributes.includes(`Max-Age=${SESSION_MAX_AGE_MS / 1000}`), attributes.join("; "));
    const token = cookie.split("=")[1]!;
    const stored = await gateway.db.kysely.selectFrom("sessions").selectAll().execute();
    assert.deepEqual(stored.map((row) => row.token_hash), [hashKeySecret(token)]);
    const keys = await adminJson<unknown[]>(gateway, "/admin/api/keys", { cookie });
    assert.equal(keys.length, 1);
    // A cookie the server never made is no session.
    await assertOpenAiError(
      await adminFetch(gateway, "/admin/api/keys", {
        cookie: `tollgate_session=${"a".repeat(48)}`,
      }),
      401,
      "invalid_request",
    );
  });
});

Deno.test("sessions: a change sent with the cookie from another origin is refused 403; a Bearer key needs no origin", async () => {
  await withClockedGateway(async (gateway) => {
    const admin = gateway.server.firstKey!;
    const { cookie } = await signIn(gateway, admin);
    const create = (name: string, headers: Record<string, string>, auth: object = { cookie }) =>
      adminFetch(gateway, "/admin/api/accounts", { ...auth, body: { name }, headers });
    const foreign: Record<string, string>[] = [
      { origin: "http://evil.example" },
      { origin: "http://evil.example", "sec-fetch-site": "cross-site" },
      { origin: gateway.url, "sec-fetch-site": "cross-site" },
      { origin: gateway.url.replace("127.0.0.1", "localhost") },
      { origin: "null" },
      {},
    ];
    for (const headers of foreign) {
      const refused = await assertOpenAiError(await create("x", headers), 403, "access_denied");
      assert.match(refused.error.message, /Refused a change/, JSON.stringify(headers));
    }
    const dashboardForm = await adminFetch(gateway, "/admin/accounts", {
      cookie,
      body: new URLSearchParams({ name: "x" }),
      headers: { origin: "http://evil.example" },
    });
    assert.equal(dashboardForm.status, 403, await dashboardForm.text());
    const names = async () =>
      (await adminJson<{ name: string }[]>(gateway, "/admin/api/accounts", { key: admin }))
        .map((account) => account.name);
    assert.deepEqual(await names(), ["admin"], "nothing was created");

    assert.equal((await create("a", { origin: gateway.url })).status, 201);
    assert.equal((await create("b", { "sec-fetch-site": "same-origin" })).status, 201);
    assert.equal(
      (await create("c", { origin: "http://evil.example" }, { key: admin })).status,
      201,
      "a key in a header is no browser's ambient credential",
    );
    assert.deepEqual(await names(), ["a", "admin", "b", "c"]);

    // Signing a browser in from another site (login CSRF) is refused too.
    const signInFromElsewhere = await adminFetch(gateway, "/admin/sign-in", {
      body: new URLSearchParams({ key: admin }),
      headers: { origin: "http://evil.example" },
    });
    assert.equal(signInFromElsewhere.status, 403);
    assert.equal(signInFromElsewhere.headers.get("set-cookie"), null);
    await signInFromElsewhere.body?.cancel();
  });
});

Deno.test("sessions: end after 12 hours idle, after 7 days in use, and at sign-out", async () => {
  await withClockedGateway(async (gateway, clock) => {
    const admin = gateway.server.firstKey!;
    const me = (cookie: string) => adminFetch(gateway, "/admin/api/me", { cookie });

    const idle = await signIn(gateway, admin);
    clock.now += SESSION_IDLE_MS - 1_000;
    assert.equal((await me(idle.cookie)).status, 200);
    clock.now += SESSION_IDLE_MS;
    const ended = await assertOpenAiError(await me(idle.cookie), 401, "invalid_request");
    assert.match(ended.error.message, /session has ended/);
    const page = await adminFetch(gateway, "/admin", { cookie: idle.cookie });
    assert.match(await page.text(), /Sign in/, "the dashboard asks to sign in again");

    const busy = await signIn(gateway, admin);
    const opened = clock.now;
    while (clock.now + SESSION_IDLE_MS / 2 < opened + SESSION_MAX_AGE_MS) {
      clock.now += SESSION_IDLE_MS / 2;
      assert.equal((await me(busy.cookie)).status, 200);
    }
    clock.now = opened + SESSION_MAX_AGE_MS;
    await assertOpenAiError(await me(busy.cookie), 401, "invalid_request");

    const session = await signIn(gateway, admin);
    const signOut = await adminFetch(gateway, "/admin/sign-out", {
      cookie: session.cookie,
      method: "POST",
      headers: { origin: gateway.url },
    });
    assert.equal(signOut.status, 303);
    assert.match(
      signOut.headers.get("set-cookie") ?? "",
      /^tollgate_session=; Max-Age=0; Path=\/admin/,
    );
    await signOut.body?.cancel();
    await assertOpenAiError(await me(session.cookie), 401, "invalid_request");
    assert.equal(await sessionCount(gateway), 0);
  });
});

Deno.test("sessions: a key disabled, revoked or expired ends its sessions at once", async () => {
  await withClockedGateway(async (gateway, clock) => {
    const user = await gateway.createKey({ account: "user" });
    const first = await signIn(gateway, user.secret);
    assert.equal(
      (await adminFetch(gateway, "/admin/api/me", { cookie: first.cookie })).status,
      200,
    );
    const keys = await adminFetch(gateway, "/admin/api/keys", { cookie: first.cookie });
    await assertOpenAiError(keys, 403, "access_denied");

    await cli(gateway, "key", "disable", user.id);
    // The key cache's second is the "at once" of every request, Bearer or cookie.
    clock.now += KEY_CACHE_TTL_MS;
    const disabled = await assertOpenAiError(
      await adminFetch(gateway, "/admin/api/me", { cookie: first.cookie }),
      401,
      "invalid_request",
    );
    assert.match(disabled.error.message, /session has ended: This API key is disabled/);
    assert.equal(await sessionCount(gateway), 0, "the session ended with its key's use");
    await cli(gateway, "key", "enable", user.id);
    clock.now += KEY_CACHE_TTL_MS;
    await assertOpenAiError(
      await adminFetch(gateway, "/admin/api/me", { cookie: first.cookie }),
      401,
      "invalid_request",
    );

    const second = await signIn(gateway, user.secret);
    await cli(
      gateway,
      "key",
      "update",
      user.id,
      "--expires",
      new Date(clock.now + 60_000).toISOString(),
    );
    clock.now += 60_000;
    await assertOpenAiError(
      await adminFetch(gateway, "/admin/api/me", { cookie: second.cookie }),
      401,
      "invalid_request",
    );

    const admin = gateway.server.firstKey!;
    const third = await signIn(gateway, admin);
    const me = await adminJson<{ key: { id: string } }>(gateway, "/admin/api/me", { key: admin });
    await cli(gateway, "key", "revoke", me.key.id);
    clock.now += KEY_CACHE_TTL_MS;
    await assertOpenAiError(
      await adminFetch(gateway, "/admin/api/keys", { cookie: third.cookie }),
      401,
      "invalid_request",
    );
    const refused = await adminFetch(gateway, "/admin/sign-in", {
      body: new URLSearchParams({ key: admin }),
      headers: { origin: gateway.url },
    });
    assert.equal(refused.status, 401);
    assert.match(await refused.text(), /revoked/);
  });
});

Deno.test("sessions: behind a TLS proxy the cookie is Secure and the origin is the proxy's https one", async () => {
  const toml = `[server]\ntrusted_proxies = ["127.0.0.1/32"]\n${CONFIG}`;
  await withClockedGateway(async (gateway) => {
    const admin = gateway.server.firstKey!;
    const origin = gateway.url.replace("http:", "https:");
    const proxied = { "x-forwarded-proto": "https", origin };
    const response = await adminFetch(gateway, "/admin/sign-in", {
      body: new URLSearchParams({ key: admin }),
      headers: proxied,
    });
    await response.body?.cancel();
    assert.equal(response.status, 303);
    const cookie = response.headers.get("set-cookie") ?? "";
    assert.match(cookie, /; Secure/);
    const session = cookie.split(";")[0]!;
    const create = (headers: Record<string, string>) =>
      adminFetch(gateway, "/admin/api/accounts", { cookie: session, body: { name: "t" }, headers });
    await assertOpenAiError(await create({ origin }), 403, "access_denied");
    assert.equal((await create(proxied)).status, 201);
    // Not from a trusted proxy, the header is not believed.
    await replaceConfig(gateway, CONFIG);
    await gateway.server.reload();
    await assertOpenAiError(await create(proxied), 403, "access_denied");
  }, toml);
});

Deno.test("sessions: on PostgreSQL a session opened on one node works on another, and sign-out ends it on both", async () => {
  const cluster = await startPostgres();
  const gateways: TestGateway[] = [];
  try {
    const databaseUrl = await cluster.createDatabase();
    gateways.push(await startGateway(CONFIG, { databaseUrl }));
    gateways.push(await startGateway(CONFIG, { databaseUrl }));
    const [a, b] = gateways as [TestGateway, TestGateway];
    const admin = a.server.firstKey!;
    const { cookie } = await signIn(a, admin);
    assert.equal((await adminFetch(b, "/admin/api/me", { cookie })).status, 200);
    const signOut = await adminFetch(b, "/admin/sign-out", {
      cookie,
      method: "POST",
      headers: { origin: b.url },
    });
    await signOut.body?.cancel();
    assert.equal(signOut.status, 303);
    await assertOpenAiError(
      await adminFetch(a, "/admin/api/me", { cookie }),
      401,
      "invalid_request",
    );
  } finally {
    for (const gateway of gateways) await gateway.close();
    await cluster.close();
  }
});
