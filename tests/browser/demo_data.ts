/**
 * Fills the database a config names with 30 days of made-up traffic (accounts, keys, ledger
 * rows settled as the server settles them, so the rollups are kept), for the README's
 * screenshot of the dashboard (screenshot.mjs). Prints the secret of its admin key.
 * Usage: deno run -A tests/browser/demo_data.ts CONFIG_PATH
 */
import { issueKey } from "../../src/auth/issue_key.ts";
import { databaseUrl, loadConfig } from "../../src/config/load.ts";
import { createAccount } from "../../src/db/accounts.ts";
import { openDatabase } from "../../src/db/database.ts";

const HOUR_MS = 3_600_000;
/** Model, USD per million input / output / cached tokens, and a typical prompt size. */
const MODELS: [string, number, number, number, number][] = [
  ["gpt-4o-mini", 0.15, 0.6, 0.075, 1_800],
  ["claude-sonnet-4", 3, 15, 0.3, 9_000],
  ["gpt-4.1", 2, 8, 0.5, 4_000],
  ["llama-3.3-70b", 0.6, 0.6, 0.6, 2_500],
];

const [configPath] = Deno.args;
if (!configPath) {
  throw new Error("Usage: deno run -A tests/browser/demo_data.ts CONFIG_PATH");
}
const db = await openDatabase(
  databaseUrl(await loadConfig(configPath, { secrets: "ignored" })),
);
try {
  const migration = await db.migrate();
  if (migration.error) throw new Error(migration.error.message);
  const now = Date.now();
  const account = async (
    name: string,
    balanceMicros: number,
    unlimited = false,
  ) =>
    (await createAccount(db.kysely, {
      name,
      balanceMicros,
      unlimited,
      createdAt: now,
    }))!;
  const admin = await account("admin", 0, true);
  const acme = await account("acme", 400_000_000);
  const research = await account("research", 0, true);
  const key = (accountId: number, name: string, isAdmin = false) =>
    issueKey(db.kysely, {
      accountId,
      group: "default",
      name,
      admin: isAdmin,
      createdAt: now,
    });
  const adminKey = await key(admin.id, "operator", true);
  const keys = [
    { issued: await key(acme.id, "acme-prod"), weight: 5, models: [0, 1, 2] },
    { issued: await key(acme.id, "acme-staging"), weight: 1, models: [0, 2] },
    {
      issued: await key(research.id, "research-agent"),
      weight: 3,
      models: [1, 3],
    },
  ];

  // A fixed seed: the same picture every time.
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const start = Math.floor(now / HOUR_MS) * HOUR_MS - 30 * 24 * HOUR_MS;
  let rows = 0;
  // Settlements are written in batches: started together, they share a few transactions.
  const settling: Promise<readonly unknown[]>[] = [];
  for (let hour = start; hour < now; hour += HOUR_MS) {
    const day = Math.floor((hour - start) / (24 * HOUR_MS));
    // Busier in working hours and as the month goes on.
    const busy = (new Date(hour).getUTCHours() + 16) % 24 < 10 ? 1 : 0.3;
    for (const { issued: { key }, weight, models } of keys) {
      const requests = Math.round(random() * weight * busy * (1 + day / 15));
      for (let i = 0; i < requests; i++) {
        const [model, input, output, cached, prompt] = MODELS[models[i % models.length]!]!;
        const inputTokens = Math.round(prompt * (0.5 + random()));
        const cachedTokens = Math.round(inputTokens * random() * 0.7);
        const outputTokens = Math.round(200 + random() * 900);
        const failed = random() < 0.03;
        const channel = model.startsWith("claude") ? "anthropic" : "openai";
        const ttfbMs = Math.round(200 + random() * 1_500);
        const cost = failed ? 0 : Math.round(
          (inputTokens - cachedTokens) * input + cachedTokens * cached +
            outputTokens * output,
        );
        settling.push(db.store.settleHold({
          holdId: "hold_none",
          accountId: key.account_id,
          keyId: key.id,
          requestId: `req_demo${rows++}`,
          createdAt: Math.min(now - 1, hour + Math.floor(random() * HOUR_MS)),
          model,
          entryPoint: "chat",
          channel,
          upstreamModel: model,
          attempts: 1,
          attemptLog: JSON.stringify([{
            channel,
            model,
            upstreamModel: model,
            outcome: failed ? "failed" : "ok",
            ...(failed
              ? {
                status: 503,
                reason: "The upstream answered HTTP 503.",
                kind: "status",
              }
              : { ttfbMs }),
          }]),
          stream: random() < 0.6,
          status: failed ? "failed" : "ok",
          reason: failed ? "The upstream failed: 503 Service Unavailable." : null,
          inputTokens: failed ? 0 : inputTokens,
          outputTokens: failed ? 0 : outputTokens,
          cachedTokens: failed ? 0 : cachedTokens,
          cacheWriteTokens: 0,
          estimated: false,
          costMicros: cost,
          durationMs: Math.round(400 + random() * 4_000),
        }));
      }
    }
  }
  const failures = (await Promise.all(settling)).flat();
  if (failures.length > 0) {
    throw new Error(`Settling failed: ${JSON.stringify(failures[0])}`);
  }
  console.error(`${rows} requests over 30 days`);
  console.log(adminKey.secret);
} finally {
  await db.close();
}
