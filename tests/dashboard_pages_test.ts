/**
 * The dashboard's pages of one key, account, model and channel over real HTTP (the browser
 * test follows them in Chromium): every name and id leads to its page, `/admin?key=` narrows
 * the overview, a key's page shows its usage and recent requests and changes it, the keys
 * page searches and hides revoked keys, a model the config does not know is warned about,
 * a channel is tested from its page, times follow the viewer's zone, money reads in cents.
 */
import assert from "node:assert/strict";
import { adminFetch, formPost, signIn } from "./admin_support.ts";
import { channel, configWith, type TestGateway } from "./harness.ts";
import { chatBody, withScope } from "./support.ts";

const CONFIG = configWith(
  channel({ name: "echo", protocol: "echo", models: ["echo"] }),
  "[models.echo]\ninput_price = 1\noutput_price = 2\n",
);

/** A page's HTML, which must answer `status`. */
async function page(gateway: TestGateway, path: string, cookie: string, status = 200) {
  const response = await adminFetch(gateway, path, { cookie });
  const html = await response.text();
  assert.equal(response.status, status, `${path}: ${html.slice(0, 500)}`);
  return html;
}

/** The hrefs of a page's links, decoded. */
function links(html: string): string[] {
  return [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"));
}

Deno.test("dashboard pages: every key, account, model, channel and request id leads to its page", async () => {
  await withScope(async (s) => {
    const gateway = await s.gateway(CONFIG);
    const ops = await gateway.createKey({ account: "ops", name: "deploys" });
    const response = await gateway.post("/v1/chat/completions", ops.secret, chatBody("echo"));
    assert.equal(response.status, 200, await response.text());
    await gateway.server.settled();
    const [row] = await gateway.ledger();
    const { cookie } = await signIn(gateway, gateway.server.firstKey!);

    const overview = links(await page(gateway, "/admin", cookie));
    for (const href of [`/admin/keys/${ops.id}`, "/admin/accounts/ops", "/admin/models/echo"]) {
      assert.ok(overview.includes(href), `the overview links ${href}`);
    }
    const requests = links(await page(gateway, "/admin/requests", cookie));
    for (
      const href of [
        `/admin/requests/${row!.request_id}`,
        `/admin/keys/${ops.id}`,
        "/admin/accounts/ops",
        "/admin/models/echo",
        "/admin/channels/echo",
      ]
    ) {
      assert.ok(requests.includes(href), `the requests page links ${href}`);
    }
    assert.ok(
      links(await page(gateway, "/admin/channels", cookie)).includes("/admin/channels/echo"),
    );

    // A key's page: its facts, usage over time, recent requests; its name everywhere.
    const key = await page(gateway, `/admin/keys/${ops.id}`, cookie);
    assert.match(key, /<h1>deploys /);
    assert.match(key, /data-figure="requests"><dt>Requests<\/dt><dd>1<\/dd>/);
    assert.match(key, /<svg class="chart"/);
    assert.match(key, new RegExp(`data-request="${row!.request_id}"`));
    assert.ok(links(key).includes(`/admin/requests?key=${ops.id}`));
    assert.ok(links(key).includes(`/admin/requests?key=${ops.id}&status=failed`));
    // An account's page lists its keys; a model's page its channels and usage.
    const account = await page(gateway, "/admin/accounts/ops", cookie);
    assert.ok(links(account).includes(`/admin/keys/${ops.id}`));
    assert.match(account, /data-figure="requests"><dt>Requests<\/dt><dd>1<\/dd>/);
    const model = await page(gateway, "/admin/models/echo", cookie);
    assert.ok(links(model).includes("/admin/channels/echo"));
    assert.match(model, /\$1 per million tokens/);
    assert.match(await page(gateway, "/admin/models/ghost", cookie), /defines no such model/);
    // The overview narrowed to a key says so, and sums that key's usage alone.
    await gateway.post("/v1/chat/completions", gateway.server.firstKey!, chatBody("echo"));
    await gateway.server.settled();
    const narrowed = await page(gateway, `/admin?key=${ops.id}`, cookie);
    assert.match(narrowed, /Only the usage of key <a href="\/admin\/keys\/[^"]+">deploys<\/a>/);
    assert.match(narrowed, /data-figure="requests"><dt>Requests<\/dt><dd>1<\/dd>/);
    assert.match(await page(gateway, "/admin", cookie), /<dd>2<\/dd>/);

    assert.match(await page(gateway, "/admin/keys/key_none", cookie, 404), /there is no such key/);
    assert.match(
      await page(gateway, "/admin/accounts/nobody", cookie, 404),
      /there is no such account/,
    );
    assert.match(
      await page(gateway, "/admin/channels/nowhere", cookie, 404),
      /the config has no such channel/,
    );
  });
});

Deno.test("dashboard pages: a key changed on its page says so by name; search and the revoked filter", async () => {
  await withScope(async (s) => {
    const gateway = await s.gateway(CONFIG);
    const { cookie } = await signIn(gateway, gateway.server.firstKey!);
    const laptop = await gateway.createKey({ account: "alice", name: "laptop" });
    const old = await gateway.createKey({ account: "bob", name: "old one" });

    const disabled = await formPost(gateway, `/admin/keys/${laptop.id}`, cookie, {
      action: "disable",
      back: "page",
    });
    await disabled.body?.cancel();
    assert.equal(disabled.status, 303);
    const location = disabled.headers.get("location")!;
    assert.ok(location.startsWith(`/admin/keys/${laptop.id}?`), location);
    assert.match(
      await page(gateway, location, cookie),
      new RegExp(`Key &quot;laptop&quot; \\(${laptop.id}\\) is disabled\\.`),
    );
    // A model the config does not know: the change is made, the page warns.
    const typo = await formPost(gateway, `/admin/keys/${laptop.id}`, cookie, {
      action: "update",
      back: "page",
      group: "default",
      name: "laptop",
      models: "ecko",
    });
    const warned = await typo.text();
    assert.equal(typo.status, 200);
    assert.match(
      warned,
      /Warning: Model &quot;ecko&quot; is unknown.*did you mean &quot;echo&quot;/,
    );
    assert.match(warned, /is saved/);
    const made = await formPost(gateway, "/admin/keys", cookie, {
      account: "alice",
      group: "default",
      name: "ci",
      models: "gpt-mni",
    });
    assert.match(await made.text(), /Warning: Model &quot;gpt-mni&quot; is unknown/);

    const revoked = await formPost(gateway, `/admin/keys/${old.id}`, cookie, { action: "revoke" });
    await revoked.body?.cancel();
    const keyRows = (html: string) =>
      [...html.matchAll(/<tr data-key="([^"]+)"/g)].map((m) => m[1]);
    const list = await page(gateway, "/admin/keys", cookie);
    assert.ok(!keyRows(list).includes(old.id), "revoked keys are hidden");
    assert.match(list, /1 revoked hidden/);
    assert.ok(keyRows(await page(gateway, "/admin/keys?revoked=show", cookie)).includes(old.id));
    assert.deepEqual(keyRows(await page(gateway, "/admin/keys?q=LAPTOP", cookie)), [laptop.id]);
    assert.deepEqual(keyRows(await page(gateway, "/admin/keys?q=bob&revoked=show", cookie)), [
      old.id,
    ]);
    // Restrictions are in the list, not only in the edit form.
    assert.match(list, /models: ecko/);
  });
});

Deno.test("dashboard pages: a channel tested from its page shows the answer; times in the viewer's zone, money in cents", async () => {
  await withScope(async (s) => {
    const gateway = await s.gateway(CONFIG);
    const { cookie } = await signIn(gateway, gateway.server.firstKey!);
    const tested = await formPost(gateway, "/admin/channels/echo/test", cookie, {});
    const html = await tested.text();
    assert.equal(tested.status, 200, html.slice(0, 300));
    assert.match(html, /data-check="ok"/);
    assert.match(html, /<blockquote data-answer="true">Reply with the word ok\.<\/blockquote>/);
    assert.equal((await gateway.ledger()).length, 0, "a test is no request of anyone's");

    const response = await gateway.post(
      "/v1/chat/completions",
      gateway.server.firstKey!,
      chatBody("echo", "a few words"),
    );
    await response.text();
    await gateway.server.settled();
    const [row] = await gateway.ledger();
    const zoned = `${cookie}; tollgate_tz=Asia%2FKolkata`;
    const requests = await page(gateway, "/admin/requests", zoned);
    assert.match(requests, /Time \(Asia\/Kolkata\)/);
    const local = new Date(row!.created_at + 5.5 * 3_600_000).toISOString();
    assert.match(requests, new RegExp(`>${local.slice(0, 10)} ${local.slice(11, 16)}</time>`));
    const overview = await page(gateway, "/admin?range=today", zoned);
    assert.match(
      overview,
      /times in <span data-zone-label="true">Asia\/Kolkata \(UTC\+05:30\)<\/span>/,
    );
    // A cost of a few micro-USD is shown with the decimals it needs, exactly on hover.
    const cost = row!.cost_micros / 1e6;
    assert.ok(cost > 0 && cost < 0.01, String(cost));
    const spend =
      /data-figure="cost_usd"><dt>Spend<\/dt><dd><span class="usd" title="exactly \$([\d.]+)" data-usd="([\d.]+)">\$([\d.]+)</
        .exec(overview);
    assert.ok(spend, "the spend is on the page");
    assert.deepEqual([Number(spend[1]), Number(spend[2])], [cost, cost]);
    assert.notEqual(spend[3], "0.00");
    // Two significant digits at most, within a micro-USD.
    assert.ok(spend[3]!.replace(/^0\.0*/, "").length <= 2, spend[3]!);
    assert.ok(Math.abs(Number(spend[3]) - cost) <= 0.05 * cost + 1e-6, spend[3]!);
    // An unknown zone is UTC.
    assert.match(
      await page(gateway, "/admin/requests", `${cookie}; tollgate_tz=Mars%2FOlympus`),
      /Time \(UTC\)/,
    );
  });
});
