/**
 * Reasons and redaction (issue 42): a failed-over request's page shows each upstream
 * attempt, its reason naming the upstream's address and its own error text; an upstream
 * that echoes its key in a 400 (whole, or in a stream's error event) has it redacted from
 * the client's error, the request log, the ledger row's reason and the attempt's.
 */
import assert from "node:assert/strict";
import type { RequestDetailJson } from "../src/admin/requests.ts";
import { adminFetch, adminJson } from "./admin_support.ts";
import { channel, configWith } from "./harness.ts";
import { chatBody, closedPort, messagesBody, withScope } from "./support.ts";

const UPSTREAM_KEY = "sk-upstream-secret-0123456789";
const HEADER_SECRET = "hdr-secret-abcdef012345";

Deno.test("request reasons: a failed-over request's page shows each attempt with the address and the upstream's words", async () => {
  await withScope(async (s) => {
    const flaky = await s.fake({
      name: "flaky",
      models: ["m"],
      behaviour: { error: { status: 500, message: "The engine overheated (shard 7)." } },
    });
    const good = await s.fake({ name: "good", models: ["m"] });
    const port = closedPort();
    const channels = channel({
      name: "down",
      protocol: "chat",
      baseUrl: `http://127.0.0.1:${port}/v1`,
      models: ["m"],
      keys: ["sk-a"],
      priority: 3,
    }) +
      channel({
        name: "flaky",
        protocol: "chat",
        baseUrl: flaky.url,
        models: ["m"],
        keys: ["sk-b"],
        priority: 2,
      }) +
      channel({ name: "good", protocol: "chat", baseUrl: good.url, models: ["m"], keys: ["sk-c"] });
    const gateway = await s.gateway(
      configWith(channels, "[failover]\nretries = 0\n"),
    );
    const admin = gateway.server.firstKey!;
    const response = await gateway.post("/v1/chat/completions", admin, chatBody("m"));
    assert.equal(response.status, 200, await response.text());
    const id = response.headers.get("x-request-id")!;
    await gateway.server.settled();
    const request = await adminJson<RequestDetailJson>(gateway, `/admin/api/requests/${id}`, {
      key: admin,
    });
    assert.deepEqual(request.attempts.map((a) => [a.channel, a.outcome]), [
      ["down", "failed"],
      ["flaky", "failed"],
      ["good", "ok"],
    ]);
    const [down, hot] = request.attempts;
    assert.match(
      down!.reason!,
      new RegExp(`The upstream at 127\\.0\\.0\\.1:${port} could not be reached`),
    );
    const flakyHost = new URL(flaky.url).host;
    assert.equal(
      hot!.reason,
      `The upstream at ${flakyHost} answered HTTP 500: The engine overheated (shard 7).`,
    );
    assert.equal(hot!.status, 500);
    const page = await adminFetch(gateway, `/admin/requests/${id}`, { key: admin });
    const html = await page.text();
    assert.equal(page.status, 200);
    for (const n of ["1", "2", "3"]) assert.ok(html.includes(`data-attempt="${n}"`));
    assert.ok(html.includes("The engine overheated (shard 7)."), "the reason in full");
    assert.ok(html.includes(`127.0.0.1:${port}`), "the address");

    // All channels failing: the client gets the catalogue's message, the row the addresses.
    good.setBehaviour({ error: { status: 500, message: "Also down." } });
    const failed = await gateway.post("/v1/chat/completions", admin, chatBody("m"));
    const body = await failed.text();
    assert.equal(failed.status, 502, body);
    assert.ok(!body.includes("127.0.0.1"), `no address in the client's error: ${body}`);
    await gateway.server.settled();
    const failedId = failed.headers.get("x-request-id")!;
    const row = await adminJson<RequestDetailJson>(gateway, `/admin/api/requests/${failedId}`, {
      key: admin,
    });
    assert.equal(row.status, "failed");
    assert.match(
      row.reason!,
      /Last attempt \(good\): The upstream at 127\.0\.0\.1:\d+ answered HTTP 500: Also down\./,
    );
  });
});

Deno.test("redaction: an upstream that echoes its key in a 400 or a stream error has it redacted everywhere", async () => {
  await withScope(async (s) => {
    const echoing = await s.fake({
      name: "echoing",
      models: ["m"],
      behaviour: {
        error: {
          status: 400,
          message: `Invalid request for key ${UPSTREAM_KEY} (header ${HEADER_SECRET}).`,
        },
      },
    });
    const gateway = await s.gateway(configWith(
      channel({
        name: "echoing",
        protocol: "chat",
        baseUrl: echoing.url,
        models: ["m"],
        keys: [UPSTREAM_KEY],
        extra: `headers = { "x-extra" = "${HEADER_SECRET}" }`,
      }),
    ));
    const admin = gateway.server.firstKey!;
    const ids: string[] = [];
    // A whole answer, a stream, and a translated one (messages to a chat channel).
    const calls = [
      gateway.post("/v1/chat/completions", admin, chatBody("m")),
      gateway.post("/v1/chat/completions", admin, chatBody("m", "hi", { stream: true })),
      gateway.post("/v1/messages", admin, messagesBody("m")),
    ];
    for (const call of calls) {
      const response = await call;
      const text = await response.text();
      assert.equal(response.status, 400, text);
      assert.ok(!text.includes(UPSTREAM_KEY) && !text.includes(HEADER_SECRET), text);
      assert.ok(
        text.includes("[redacted]"),
        `the client still reads the upstream's words: ${text}`,
      );
      ids.push(response.headers.get("x-request-id")!);
    }
    // A stream whose error event echoes the key, before and after its content.
    for (const afterEvents of [0, 2]) {
      echoing.setBehaviour({
        midStreamError: { afterEvents, message: `Server error with ${UPSTREAM_KEY}` },
      });
      const response = await gateway.post(
        "/v1/chat/completions",
        admin,
        chatBody("m", "hello there friend", { stream: true }),
      );
      const text = await response.text();
      assert.ok(!text.includes(UPSTREAM_KEY), `stream (after ${afterEvents}): ${text}`);
      ids.push(response.headers.get("x-request-id")!);
    }
    await gateway.server.settled();
    const ledger = JSON.stringify(await gateway.ledger());
    assert.ok(!ledger.includes(UPSTREAM_KEY) && !ledger.includes(HEADER_SECRET), ledger);
    assert.ok(ledger.includes("[redacted]"));
    const log = gateway.requestLog.join("\n");
    assert.ok(!log.includes(UPSTREAM_KEY) && !log.includes(HEADER_SECRET));
    for (const id of ids.slice(0, 3)) {
      const row = await adminJson<RequestDetailJson>(gateway, `/admin/api/requests/${id}`, {
        key: admin,
      });
      assert.match(row.reason!, /\[redacted\]/);
      assert.match(
        row.attempts[0]!.reason!,
        /answered HTTP 400: Invalid request for key \[redacted\]/,
      );
    }
  });
});
