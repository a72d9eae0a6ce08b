/**
 * The dashboard's pages over real HTTP (the browser test drives them in Chromium): every page
 * carries a strict Content-Security-Policy and loads only the gateway's own files, with no
 * inline script or style; its forms create a key whose secret is shown once and works,
 * show a refusal on the page (never a stack trace), top up, revoke; the requests page pages
 * newest first; a key that is not admin sees only its own page.
 */
import assert from "node:assert/strict";
import type { KeyJson } from "../src/admin/keys.ts";
import { adminFetch, cliJson, formPost, signIn } from "./admin_support.ts";
import { channel, configWith, type TestGateway } from "./harness.ts";
import { chatBody, withScope } from "./support.ts";

const CONFIG = configWith(
  channel({ name: "echo", protocol: "echo", models: ["echo"] }),
  "[models.echo]\ninput_price = 1\noutput_price = 2\n",
);

const PAGES = ["/admin", "/admin/keys", "/admin/accounts", "/admin/channels", "/admin/requests"];

/** A page's HTML, which must answer `status`. */
async function page(gateway: TestGateway, path: string, cookie: string, status = 200) {
  const response = await adminFetch(gateway, path, { cookie });
  const html = await response.text();
  assert.equal(response.status, status, `${path}: ${html.slice(0, 500)}`);
  assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
  return { html, headers: response.headers };
}

Deno.test("dashboard: every page has a strict CSP and loads only embedded files, no inline script or style", async () => {
  await withScope(async (s) => {
    const gateway = await s.gateway(CONFIG);
    const { cookie } = await signIn(gateway, gateway.server.firstKey!);
    const assets = new Set<string>();
    const [first] = await cliJson<KeyJson[]>(gateway, "key", "list");
    // The pages of one key, account, model and channel too.
    const details = [
      `/admin/keys/${first!.id}`,
      "/admin/accounts/admin",
      "/admin/models/echo",
      "/admin/channels/echo",
    ];
    for (const path of [...PAGES, ...details, "/admin/sign-in?next=/admin"]) {
      const { html, headers } = await page(gateway, path, path.includes("sign-in") ? "" : cookie);
      const csp = headers.get("content-security-policy") ?? "";
      for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'"]) {
        assert.ok(csp.includes(directive), `${path}: ${csp}`);
      }
      assert.ok(csp.includes("frame-ancestors 'none'"));
      assert.ok(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"));
      assert.equal(headers.get("x-content-type-options"), "nosniff");
      assert.equal(headers.get("referrer-policy"), "same-origin");
      assert.equal(headers.get("cache-control"), "no-store");
      assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, `${path}: an inline script`);
      assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i, `${path}: inline style or handler`);
      for (const [, url] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
        assert.ok(url!.startsWith("/admin"), `${path} links ${url} outside the gateway`);
        if (url!.startsWith("/admin/assets/")) assets.add(url!);
      }
    }
    assert.equal(assets.size, 3, [...assets].join(", "));
    for (const asset of assets) {
      const response = await fetch(`${gateway.url}${asset}`);
      assert.equal(response.status, 200, asset);
      assert.ok((await response.text()).length > 100);
      assert.match(response.headers.get("cache-control") ?? "", /immutable/);
      assert.match(
        response.headers.get("content-type") ?? "",
        /^(text\/css|text\/javascript|image\/svg\+xml)/,
      );
    }
    const missing = await page(gateway, "/admin/nothing", cookie, 404);
    assert.match(missing.html, /There is no page \/admin\/nothing/);
  });
});

Deno.test("dashboard: a key made in the form is shown once and works; refusals are shown on the page", async () => {
  await withScope(async (s) => {
    const gateway = await s.gateway(CONFIG);
    const { cookie } = await signIn(gateway, gateway.server.firstKey!);
    const bad = await formPost(gateway, "/admin/keys", cookie, {
      account: "admin",
      group: "default",
      name: "ci bot",
      quota_tokens: "lots",
    });
    const refusal = await bad.text();
    assert.equal(bad.status, 400);
    assert.match(refusal, /Invalid quota_tokens &quot;lots&quot;/);
    assert.match(refusal, /value="ci bot"/, "what was typed is kept");
    assert.doesNotMatch(refusal, /\bat [^ ]+\.tsx?:\d+/, "no stack trace");

    const made = await formPost(gateway, "/admin/keys", cookie, {
      account: "admin",
      group: "default",
      name: "ci bot",
      quota_tokens: "100000",
      models: "echo",
    });
    const html = await made.text();
    assert.equal(made.status, 200, html.slice(0, 300));
    const secret = /<code id="new-secret"[^>]*>(sk-[0-9A-Za-z]+)<\/code>/.exec(html)?.[1];
    assert.ok(secret, "the secret is on the page");
    const answer = await gateway.post("/v1/chat/completions", secret, chatBody("echo"));
    assert.equal(answer.status, 200, await answer.text());
    assert.ok(!(await page(gateway, "/admin/keys", cookie)).html.includes(secret), "shown once");
    const keys = await cliJson<KeyJson[]>(gateway, "key", "list");
    const key = keys.find((item) => item.name === "ci bot")!;
    assert.deepEqual([key.quota_tokens, key.models, key.admin], [100000, ["echo"], false]);

    const edited = await formPost(gateway, `/admin/keys/${key.id}`, cookie, {
      action: "update",
      name: "ci",
      group: "default",
      quota_tokens: "",
      models: "",
    });
    await edited.body?.cancel();
    assert.equal(edited.status, 303);
    assert.match(edited.headers.get("location") ?? "", /done=update/);
    const revoked = await formPost(gateway, `/admin/keys/${key.id}`, cookie, { action: "revoke" });
    await revoked.body?.cancel();
    assert.equal(revoked.status, 303);
    const after = (await cliJson<KeyJson[]>(gateway, "key", "list")).find((k) => k.id === key.id)!;
    assert.deepEqual([after.name, after.quota_tokens, after.models, after.revoked], [
      "ci",
      null,
      null,
      true,
    ]);

    const created = await formPost(gateway, "/admin/accounts", cookie, {
      name: "team",
      balance_usd: "1.25",
    });
    await created.body?.cancel();
    assert.equal(created.status, 303);
    const notMoney = await formPost(gateway, "/admin/accounts/team", cookie, {
      action: "topup",
      usd: "ten",
    });
    assert.equal(notMoney.status, 400);
    assert.match(await notMoney.text(), /role="alert">Invalid usd/);
    const topUp = await formPost(gateway, "/admin/accounts/team", cookie, {
      action: "topup",
      usd: "0.000001",
    });
    assert.equal(topUp.status, 303);
    await topUp.body?.cancel();
    const done = await page(gateway, topUp.headers.get("location")!, cookie);
    assert.match(done.html, /Account team is topped up/);
    // In cents, the exact figure on hover.
    assert.match(
      done.html,
      /data-figure="balance_usd"><span class="usd" title="exactly \$1\.250001" data-usd="1\.250001">\$1\.25</,
    );
  });
});

Deno.test("dashboard: a key that is not admin sees its own key, quota, balance and usage, nothing else, its quota used up or not", async () => {
  await withScope(async (s) => {
    const gateway = await s.gateway(CONFIG);
    const user = await gateway.createKey({ account: "user", balanceUsd: "3", quotaTokens: 5000 });
    const other = await gateway.createKey({ account: "other" });
    for (const key of [user.secret, other.secret]) {
      const answer = await gateway.post("/v1/chat/completions", key, chatBody("echo"));
      assert.equal(answer.status, 200, await answer.text());
    }
    await gateway.server.settled();
    const { cookie } = await signIn(gateway, user.secret);
    const own = await page(gateway, "/admin", cookie);
    assert.match(own.html, new RegExp(`data-key="${user.id}"`));
    assert.match(own.html, /of 5,000 tokens used/);
    assert.match(own.html, /data-figure="requests"><dt>Requests<\/dt><dd>1<\/dd>/);
    assert.ok(
      !own.html.includes(other.id) && !own.html.includes("other"),
      "no other key or account",
    );
    assert.doesNotMatch(own.html, /href="\/admin\/keys"/, "no admin pages in the navigation");
    for (const path of PAGES.slice(1)) {
      const refused = await page(gateway, path, cookie, 403);
      assert.match(refused.html, /needs an admin key/);
    }

    // A key whose quota is used up can no longer call models, but still sees why.
    const spent = await gateway.createKey({ account: "spent", quotaTokens: 1 });
    await (await gateway.post("/v1/chat/completions", spent.secret, chatBody("echo"))).text();
    await gateway.server.settled();
    const refused = await gateway.post("/v1/chat/completions", spent.secret, chatBody("echo"));
    assert.equal(refused.status, 401, await refused.text());
    const signedIn = await signIn(gateway, spent.secret);
    assert.match((await page(gateway, "/admin", signedIn.cookie)).html, /of 1 tokens used/);
  });
});

Deno.test("dashboard: the requests page lists newest first, a page at a time, with the CLI's filters", async () => {
  await withScope(async (s) => {
    const gateway = await s.gateway(CONFIG);
    const admin = gateway.server.firstKey!;
    for (let i = 0; i < 5; i++) {
      const answer = await gateway.post("/v1/chat/completions", admin, chatBody("echo", `n${i}`));
      await answer.text();
    }
    const ledger = await gateway.ledger();
    const { cookie } = await signIn(gateway, admin);
    const ids = (html: string) => [...html.matchAll(/data-request="([^"]+)"/g)].map((m) => m[1]);
    const first = await page(gateway, "/admin/requests?model=echo&limit=2", cookie);
    const newest = ledger.map((row) => row.request_id).reverse();
    assert.deepEqual(ids(first.html), newest.slice(0, 2));
    const older = /href="\/admin\/requests\?([^"]+)" rel="next"/.exec(first.html)?.[1];
    assert.ok(older, "a link to the older page");
    const second = await page(gateway, `/admin/requests?${older.replaceAll("&amp;", "&")}`, cookie);
    assert.deepEqual(ids(second.html), newest.slice(2, 4));
    assert.match(second.html, /value="echo"/, "the filters stay");
    const bad = await page(gateway, "/admin/requests?since=last+week", cookie, 400);
    assert.match(bad.html, /Invalid since &quot;last week&quot;/);
  });
});
