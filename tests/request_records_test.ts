/**
 * Every request is on record (issue 42): each kind of refusal (no ledger row) is found by
 * its request id through the admin API as soon as its answer went out, then through the
 * CLI and the request's page, and `--status refused` lists them; no secret reaches a
 * record or the request log (a wrong key by its prefix at most, a `?key=` never); past 60
 * a minute from one address, keyless refusals are counted in one record.
 */
import assert from "node:assert/strict";
import type { RequestDetailJson, RequestJson } from "../src/admin/requests.ts";
import { silentLogger } from "../src/log.ts";
import { adminFetch, adminJson, cliJson } from "./admin_support.ts";
import { channel, configWith, startGateway, type TestGateway } from "./harness.ts";
import { startPostgres } from "./postgres.ts";
import { rawConnect } from "./raw_http.ts";
import { chatBody, type Scope, withScope } from "./support.ts";

const BAD_KEY = "sk-wrongkeythatisnotknown0123456789";
const QUERY_SECRET = "sk-querysecret0123456789abcdef";

const CONFIG = configWith(
  channel({
    name: "echo",
    protocol: "echo",
    models: ["echo"],
    extra: `groups = ["default", "slow"]`,
  }),
  `[server]\nmax_body_bytes = 2048\n\n[timeouts]\nbody = 500\n\n` +
    `[groups.slow]\nmodels = ["*"]\nrpm = 1\n`,
);

/** One refusal: how to make it, and the status and code it answers. */
interface RefusalCase {
  name: string;
  send(gateway: TestGateway, keys: Keys): Promise<Response>;
  status: number;
  code: string;
}

interface Keys {
  admin: string;
  restricted: string;
  slow: string;
}

const post = (gateway: TestGateway, key: string | undefined, body: string) =>
  fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body,
  });

const ECHO = JSON.stringify(chatBody("echo"));

const CASES: RefusalCase[] = [
  {
    name: "no key",
    send: (g) => post(g, undefined, ECHO),
    status: 401,
    code: "invalid_request",
  },
  {
    name: "a wrong key",
    send: (g) => post(g, BAD_KEY, ECHO),
    status: 401,
    code: "authentication_error",
  },
  {
    name: "a model the key may not use",
    send: (g, k) => post(g, k.restricted, ECHO),
    status: 403,
    code: "access_denied",
  },
  {
    name: "an unknown path with ?key=",
    send: (g) => fetch(`${g.url}/v1/nothing/here?key=${QUERY_SECRET}`),
    status: 404,
    code: "not_found",
  },
  {
    name: "a method the path does not take",
    send: (g, k) =>
      fetch(`${g.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${k.admin}` } }),
    status: 405,
    code: "method_not_allowed",
  },
  {
    name: "a body past max_body_bytes",
    send: (g, k) => post(g, k.admin, JSON.stringify(chatBody("echo", "x".repeat(4096)))),
    status: 413,
    code: "request_too_large",
  },
  {
    name: "a body that is no JSON",
    send: (g, k) => post(g, k.admin, "{not json"),
    status: 400,
    code: "bad_request_body",
  },
  {
    name: "a model no channel serves",
    send: (g, k) => post(g, k.admin, JSON.stringify(chatBody("nope"))),
    status: 503,
    code: "model_not_found",
  },
  {
    name: "past the key's rpm",
    send: async (g, k) => {
      const first = await post(g, k.slow, ECHO);
      await first.text();
      assert.equal(first.status, 200);
      return await post(g, k.slow, ECHO);
    },
    status: 429,
    code: "rate_limit_exceeded",
  },
];

/** Each refusal found by its id at once (API), then through the CLI and its page; no secret kept. */
async function eachRefusal(s: Scope): Promise<void> {
  const gateway = await s.gateway(CONFIG);
  const admin = gateway.server.firstKey!;
  const restricted = (await gateway.createKey({ models: ["other"] })).secret;
  const slow = (await gateway.createKey({ group: "slow" })).secret;
  const keys = { admin, restricted, slow };
  const ids: [RefusalCase, string][] = [];
  for (const refusal of CASES) {
    const response = await refusal.send(gateway, keys);
    const body = await response.text();
    assert.equal(response.status, refusal.status, `${refusal.name}: ${body}`);
    const id = response.headers.get("x-request-id")!;
    ids.push([refusal, id]);
    // At once: the record may still be pending in memory.
    const found = await adminJson<RequestDetailJson>(gateway, `/admin/api/requests/${id}`, {
      key: admin,
    });
    assert.equal(found.status, "refused", refusal.name);
    assert.equal(found.code, refusal.code, `${refusal.name}: ${found.reason}`);
    assert.equal(found.http_status, refusal.status);
    assert.equal(found.client_address, "127.0.0.1");
    assert.ok(found.reason, `${refusal.name} has its reason`);
    assert.deepEqual(found.attempts, []);
  }
  // A body that stops coming: 408 after [timeouts] body.
  const timedOut: RefusalCase = {
    name: "a body that stops coming",
    send: () => Promise.reject(new Error("sent by hand")),
    status: 408,
    code: "request_timeout",
  };
  const client = await rawConnect(gateway.url);
  try {
    await client.send(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
    );
    await client.send('{"model":"echo",');
    const answer = await client.until("}}");
    assert.match(answer, /^HTTP\/1\.1 408 /);
    const id = /x-request-id: (\S+)/i.exec(answer)![1]!;
    const found = await adminJson<RequestDetailJson>(gateway, `/admin/api/requests/${id}`, {
      key: admin,
    });
    assert.equal(found.code, "request_timeout");
    ids.push([timedOut, id]);
  } finally {
    client.close();
  }
  await gateway.server.settled();

  for (const [refusal, id] of ids) {
    const [row] = await cliJson<RequestDetailJson[]>(gateway, "requests", "--id", id);
    assert.equal(row?.code, refusal.code, `${refusal.name} through the CLI`);
    const page = await adminFetch(gateway, `/admin/requests/${id}`, { key: admin });
    const html = await page.text();
    assert.equal(page.status, 200, `${refusal.name}'s page`);
    assert.match(html, new RegExp(`data-request="${id}"`));
    assert.ok(html.includes(refusal.code), `${refusal.name}'s page names its code`);
  }
  const wrong = await cliJson<RequestDetailJson[]>(
    gateway,
    "requests",
    "--id",
    ids[1]![1],
  );
  assert.equal(wrong[0]!.key_prefix, "sk-wron…", "a wrong key by its prefix only");
  const restrictedRow = ids.find(([refusal]) => refusal.code === "access_denied")![1];
  const [known] = await cliJson<RequestDetailJson[]>(gateway, "requests", "--id", restrictedRow);
  assert.ok(known!.key_id?.startsWith("key_"), "a known key by its id");
  assert.ok(known!.account, "and its account");
  assert.equal(known!.model, "echo");
  assert.equal(known!.entry_point, "chat");

  // `--status refused` lists them all, through the CLI and the API alike.
  const refused = await cliJson<RequestJson[]>(gateway, "requests", "--status", "refused");
  assert.deepEqual(
    new Set(refused.map((row) => row.request_id)),
    new Set(ids.map(([, id]) => id)),
  );
  assert.deepEqual(
    await adminJson(gateway, "/admin/api/requests?status=refused", { key: admin }),
    refused,
  );
  // With the ledger's rows (the rpm case's first request was served), newest first.
  const all = await cliJson<RequestJson[]>(gateway, "requests");
  assert.equal(all.length, ids.length + 1);
  assert.ok(all.some((row) => row.status === "ok"));
  const times = all.map((row) => row.time);
  assert.deepEqual(times, [...times].sort().reverse());
  // Paging on after a refusal (a negative id) and after a ledger row.
  const [first, second, ...rest] = all;
  const page = await cliJson<RequestJson[]>(
    gateway,
    "requests",
    "--limit",
    "2",
    `--before=${second!.id}`,
  );
  assert.ok(first && page.length === 2 && rest.length > 0);

  // The Requests page lists refusals with a link to each one's page.
  const list = await adminFetch(gateway, "/admin/requests?status=refused", { key: admin });
  const html = await list.text();
  for (const [, id] of ids) assert.ok(html.includes(`href="/admin/requests/${id}"`));

  // The overview counts them beside the errors, leading to the list.
  const overview = await (await adminFetch(gateway, "/admin", { key: admin })).text();
  assert.match(
    overview,
    new RegExp(
      `data-figure="refused"><dt>Refused</dt><dd><a href="[^"]*status=refused[^"]*">${ids.length}</a>`,
    ),
  );

  // No secret anywhere: not the wrong key, not the query's key.
  const records = JSON.stringify(
    await gateway.db.kysely.selectFrom("refusals").selectAll().execute(),
  );
  const log = gateway.requestLog.join("\n");
  for (const secret of [BAD_KEY, QUERY_SECRET, admin, restricted, slow]) {
    assert.ok(!records.includes(secret), "no secret in a record");
    assert.ok(!log.includes(secret), "no secret in the request log");
  }
  assert.ok(!records.includes("querysecret") && !log.includes("querysecret"));
}

Deno.test("request records: each refusal is found by its id through the API at once, the CLI and its page; no secret kept", async () => {
  await withScope(eachRefusal);
});

Deno.test("request records on PostgreSQL", async () => {
  const cluster = await startPostgres();
  try {
    await withScope(eachRefusal, { database: () => cluster.createDatabase() });
  } finally {
    await cluster.close();
  }
});

Deno.test("request records: past 60 a minute from one address, keyless refusals are one counted record", async () => {
  const time = Date.parse("2030-01-01T10:00:10Z");
  const gateway = await startGateway(CONFIG, { log: silentLogger, now: () => time });
  try {
    for (let i = 0; i < 75; i++) {
      const response = await post(gateway, BAD_KEY, ECHO);
      await response.text();
      assert.equal(response.status, 401);
    }
    // A known key's refusals are never folded.
    await gateway.server.settled();
    const rows = await gateway.db.kysely.selectFrom("refusals").selectAll().orderBy("id").execute();
    assert.equal(rows.length, 61, "60 records, then one that counts the rest");
    assert.deepEqual(rows.slice(0, 60).map((row) => Number(row.count)), Array(60).fill(1));
    const flood = rows[60]!;
    assert.equal(Number(flood.count), 15);
    assert.equal(flood.code, "refusal_flood");
    assert.equal(flood.client_address, "127.0.0.1");
    assert.match(flood.reason, /More than 60 refusals without a known key from 127\.0\.0\.1/);
    const [listed] = await cliJson<RequestJson[]>(gateway, "requests", "--limit", "1");
    assert.ok(listed);
  } finally {
    await gateway.close();
  }
});
