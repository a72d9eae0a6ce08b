/**
 * Budgets and alerts on the dashboard in a real Chromium (issue 43): a key made in the form
 * with a budget, budgets on the keys, accounts and own pages, a top-up with a reason and an
 * adjustment in an account's history, and the Alerts page sending a test event to a local
 * receiver and showing it delivered; nothing overflows a phone's width.
 *
 * Run: `npm ci && node --test budgets_browser.mjs` here (`.ci/run` does).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  launchChromium,
  serve,
  signIn as signInWith,
  tollgate as tollgateWith,
  writeConfig,
} from "./tollgate.mjs";

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
let dir;
let configPath;
let server;
let url;
let adminKey;
let browser;
let receiver;
const received = [];
const errors = [];

const tollgate = (...args) => tollgateWith(configPath, ...args);
const signIn = (context, key) => signInWith(context, url, key);

async function context(viewport = DESKTOP) {
  const made = await browser.newContext({ viewport });
  made.on("page", (page) => {
    page.on("console", (message) => {
      if (message.type() === "error") {
        errors.push(`${page.url()}: ${message.text()}`);
      }
    });
    page.on(
      "pageerror",
      (error) => errors.push(`${page.url()}: ${error.message}`),
    );
  });
  return made;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "tollgate_budgets_browser_"));
  receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => body += chunk);
    request.on("end", () => {
      received.push({ headers: request.headers, body: JSON.parse(body) });
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  configPath = await writeConfig(dir, [
    "[budgets]",
    'timezone = "+05:30"',
    "[groups.default]",
    'models = ["*"]',
    'key_budget = { usd = 5, period = "week" }',
    "[models.echo]",
    "input_price = 1.25",
    "output_price = 3.5",
    "[alerts]",
    "[[alerts.webhooks]]",
    'name = "ops"',
    `url = "http://127.0.0.1:${receiver.address().port}/hook"`,
    'secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"',
    "[[channels]]",
    'name = "echo"',
    'protocol = "echo"',
    'models = ["echo"]',
  ]);
  server = await serve(configPath, { firstRun: true });
  url = server.url;
  adminKey = server.key;
  await tollgate(
    "account",
    "create",
    "team",
    "--balance",
    "20",
    "--budget",
    "50",
  );
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

test("a key made in the form with a budget; budgets on the keys page", async () => {
  const made = await context();
  const page = await signIn(made, adminKey);
  await page.getByRole("link", { name: "Keys" }).click();
  const form = page.getByRole("form", { name: "Create a key" });
  if (!(await form.isVisible())) await page.getByText("Create a key").click();
  await form.getByLabel("Account").selectOption("team");
  await form.getByLabel("Name").fill("budgeted");
  await form.getByLabel("Budget (USD)").fill("0.25");
  await form.getByLabel("Budget period").selectOption("day");
  await form.getByRole("button", { name: "Create key" }).click();
  const secret = (await page.locator("#new-secret").innerText()).trim();
  const listed = JSON.parse(
    await tollgate("key", "list", "--account", "team", "--json"),
  );
  assert.deepEqual(
    [listed[0].budget_usd, listed[0].budget_period, listed[0].budget_source],
    [0.25, "day", "own"],
  );
  await page.goto(`${url}/admin/keys`);
  const card = page.locator(`[data-key="${listed[0].id}"]`);
  assert.match(
    await card.locator('[data-figure="budget"]').innerText(),
    /\$0\.00 of \$0\.25 a day/,
  );
  assert.match(
    await card.locator('[data-figure="budget_renews_at"]').innerText(),
    /18:30/,
  );
  // The admin key's budget is its group's default.
  const own = page.locator("[data-key]").first();
  assert.match(
    await own.locator('[data-figure="budget"]').innerText(),
    /of \$5\.00 a week \(default\)/,
  );

  // Its holder's own page shows the key's and the account's budgets.
  const holder = await context();
  const ownPage = await signIn(holder, secret);
  assert.match(
    await ownPage.locator('[data-key] [data-figure="budget"]').innerText(),
    /\$0\.25 a day/,
  );
  assert.match(
    await ownPage.locator('[data-account] [data-figure="budget"]').innerText(),
    /\$50\.00 a month/,
  );
  await holder.close();
  await made.close();
});

test("a top-up with a reason and an adjustment land in the account's history", async () => {
  const made = await context();
  const page = await signIn(made, adminKey);
  await page.getByRole("link", { name: "Accounts" }).click();
  const card = page.locator('[data-account="team"]');
  const form = card.getByRole("form", { name: "Top up or adjust team" });
  await form.getByLabel("Amount in USD").fill("10");
  await form.getByLabel("Reason").fill("monthly allowance");
  await form.getByRole("button", { name: "Top up" }).click();
  await page.getByText("Account team is topped up.").waitFor();
  const again = page.locator('[data-account="team"]').getByRole("form", {
    name: "Top up or adjust team",
  });
  await again.getByLabel("Amount in USD").fill("-2.5");
  await again.getByLabel("Reason").fill("refund: failed batch job");
  await again.getByRole("button", { name: "Adjust" }).click();
  await page.getByText("Account team is adjusted.").waitFor();
  assert.equal(
    await page.locator('[data-account="team"] [data-figure="balance_usd"]')
      .innerText(),
    "$27.50",
  );
  assert.match(
    await page.locator('[data-account="team"] [data-figure="budget"]')
      .innerText(),
    /of \$50\.00 a month/,
  );
  await page.locator('[data-account="team"]').getByRole("link", {
    name: "History",
  }).click();
  const rows = await page.locator("table tbody tr").allInnerTexts();
  assert.equal(rows.length, 2);
  assert.match(rows[0], /topup\s+\$10\.00\s+\$30\.00\s+monthly allowance/);
  assert.match(
    rows[1],
    /adjust\s+-\$2\.50\s+\$27\.50\s+refund: failed batch job/,
  );
  const history = JSON.parse(
    await tollgate("account", "history", "team", "--json"),
  );
  assert.deepEqual(history.map((entry) => entry.usd), [10, -2.5]);
  await made.close();
});

test("the Alerts page sends a test event and shows it delivered; it fits a phone", async () => {
  const made = await context(PHONE);
  const page = await signIn(made, adminKey);
  await page.goto(`${url}/admin/alerts`);
  await page.getByRole("button", { name: "Send a test event" }).click();
  await page.getByText("A test event was sent.").waitFor();
  const row = page.locator("[data-event]").first();
  assert.match(await row.innerText(), /test/);
  assert.match(
    await row.locator('[data-delivery="ops"]').innerText(),
    /delivered\s+ops, 1 attempt/,
  );
  assert.equal(received.length, 1);
  assert.ok(received[0].headers["webhook-signature"].startsWith("v1,"));
  const overflow = await page.evaluate(() =>
    document.documentElement.scrollWidth > document.documentElement.clientWidth
  );
  assert.equal(overflow, false, "no sideways scrolling at 390 px");
  await made.close();
  assert.deepEqual(errors, []);
});
