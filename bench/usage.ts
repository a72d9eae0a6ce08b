/**
 * The usage query over a big ledger: `usage` with a 30-day hourly series (what the admin
 * API's `GET /admin/api/usage` and the dashboard's overview ask) through the admin service,
 * over N ledger rows spread over D days, K keys of A accounts and M models. The ledger is
 * written by SQL (fast), then the migration that adds the hourly rollups fills them from
 * it, as it does for an existing database; settlement keeps them the same way afterwards
 * (tests/usage_test.ts shows both agree with the ledger). For comparison, the same totals
 * summed from the ledger itself, as `tollgate usage` did before the rollups.
 *
 *   deno run -A bench/usage.ts [--rows N] [--days D] [--keys K] [--accounts A]
 *                              [--models M] [--runs R] [--postgres]
 */
import { parseArgs } from "node:util";
import pg from "pg";
import { MIGRATIONS, POSTGRES_MIGRATIONS } from "../migrations/index.ts";
import { createAdminService } from "../src/admin/service.ts";
import { parseConfigText } from "../src/config/load.ts";
import { openDatabase } from "../src/db/database.ts";
import { migrate } from "../src/db/migrate.ts";
import { migratePostgres } from "../src/db/postgres_migrate.ts";
import { openSqliteFile } from "../src/db/sqlite_file.ts";
import { startPostgres } from "../tests/postgres.ts";
import { median } from "./measure.ts";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    days: { type: "string", default: "35" },
    keys: { type: "string", default: "50" },
    accounts: { type: "string", default: "10" },
    models: { type: "string", default: "4" },
    runs: { type: "string", default: "20" },
    postgres: { type: "boolean", default: false },
  },
});
const ROWS = Number(values.rows);
const DAYS = Number(values.days);
const KEYS = Number(values.keys);
const ACCOUNTS = Number(values.accounts);
const MODELS = Number(values.models);
const RUNS = Number(values.runs);
const DAY_MS = 86_400_000;
/** The ledger ends here (the bench's "now"); its rows spread over the DAYS before. */
const END = Date.parse("2030-07-01T00:00:00Z");
const START = END - DAYS * DAY_MS;

/**
 * The statements that write the accounts, keys and ledger rows, in the dialect's SQL:
 * rows spread evenly over the days (a request every ~3 s at the defaults), keys and models
 * taken in turn, one request in 50 failed.
 */
function fillStatements(postgres: boolean): string[] {
  /** The numbers 0 to count - 1 as a subquery's column `name`. */
  const numbers = (count: number, name: string) =>
    postgres
      ? `(SELECT g AS ${name} FROM generate_series(0::bigint, ${count - 1}) AS g)`
      : `(WITH RECURSIVE n(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM n WHERE v + 1 < ${count}) ` +
        `SELECT v AS ${name} FROM n)`;
  const text = (expression: string) => postgres ? `(${expression})::text` : `(${expression})`;
  return [
    `INSERT INTO accounts (id, name, enabled, unlimited, balance_micros, created_at)
      SELECT a + 1, 'account_' || ${text("a")}, 1, 1, 0, ${START} FROM ${numbers(ACCOUNTS, "a")} x`,
    `INSERT INTO api_keys (id, hash, prefix, account_id, group_name, enabled, revoked, created_at)
      SELECT 'key_' || ${text("k")}, 'hash_' || ${text("k")}, 'sk-bench', k % ${ACCOUNTS} + 1,
        'default', 1, 0, ${START}
      FROM ${numbers(KEYS, "k")} x`,
    `INSERT INTO ledger (request_id, created_at, account_id, key_id, model, entry_point, channel,
        attempts, stream, status, input_tokens, output_tokens, cached_tokens, cache_write_tokens,
        estimated, cost_micros, duration_ms)
      SELECT 'req_' || ${text("i")}, ${START} + (i * ${DAYS * DAY_MS}) / ${ROWS},
        (i * 7919) % ${KEYS} % ${ACCOUNTS} + 1, 'key_' || ${text(`(i * 7919) % ${KEYS}`)},
        'model_' || ${text(`i % ${MODELS}`)}, 'chat', 'c', 1, i % 2,
        CASE WHEN i % 50 = 0 THEN 'failed' ELSE 'ok' END, 500 + i % 700, 100 + i % 300,
        i % 200, i % 7, 0, 100 + i % 900, 250
      FROM ${numbers(ROWS, "i")} x`,
  ];
}

/** Milliseconds `fn` takes, R times after a warm-up: p50 and max. */
async function timed(fn: () => Promise<unknown>): Promise<{ p50: number; max: number }> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return { p50: median(times), max: Math.max(...times) };
}

/** Fills the database at `url` (migrated up to the rollups by `premigrate`), then measures. */
async function measure(name: string, url: string, premigrate: () => Promise<void>) {
  const filling = performance.now();
  await premigrate();
  const filled = performance.now() - filling;
  const db = await openDatabase(url);
  try {
    const migrating = performance.now();
    const migration = await db.migrate();
    if (migration.error) throw new Error(migration.error.message);
    const migrated = performance.now() - migrating;
    const count = async (table: "usage_hourly" | "usage_daily") =>
      Number(
        (await db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()).n,
      );
    const rollups = `${await count("usage_hourly")} hourly and ${await count("usage_daily")} daily`;
    const admin = createAdminService({
      queries: () => Promise.resolve(db.kysely),
      config: () => parseConfigText(""),
      now: () => END,
    });
    const since = new Date(END - 30 * DAY_MS).toISOString();
    // Not on an hour: the edges come from the ledger.
    const oddSince = new Date(END - 30 * DAY_MS + 1_234_567).toISOString();
    const figures: [string, { p50: number; max: number }][] = [
      ["30 days, hourly series", await timed(() => admin.usage({ since, bucket: "hour" }))],
      [
        "30 days from mid-hour, hourly",
        await timed(() => admin.usage({ since: oddSince, bucket: "hour" })),
      ],
      ["30 days, daily series", await timed(() => admin.usage({ since, bucket: "day" }))],
      [
        "30 days, one account, hourly",
        await timed(() => admin.usage({ since, account: "account_3", bucket: "hour" })),
      ],
      [
        "30 days, one key, hourly",
        await timed(() => admin.usage({ since, key: "key_7", bucket: "hour" })),
      ],
      [
        "ledger scan, 30 days by key (no rollups)",
        await timed(() =>
          db.client.execute({
            sql: `SELECT account_id, key_id, model, count(*), sum(input_tokens),
                sum(output_tokens), sum(cached_tokens), sum(cost_micros)
              FROM ledger WHERE created_at >= ? GROUP BY account_id, key_id, model`,
            args: [END - 30 * DAY_MS],
          })
        ),
      ],
    ];
    console.log(
      `${name}: ${ROWS} ledger rows over ${DAYS} days, ${KEYS} keys, ${ACCOUNTS} accounts, ` +
        `${MODELS} models; ${rollups} rollup rows`,
    );
    console.log(
      `  ledger written in ${(filled / 1000).toFixed(1)} s; migration 006 (rollups filled) ` +
        `${(migrated / 1000).toFixed(1)} s`,
    );
    for (const [what, { p50, max }] of figures) {
      console.log(
        `  ${what.padEnd(42)} p50 ${p50.toFixed(1).padStart(7)} ms   max ${
          max.toFixed(1).padStart(7)
        } ms`,
      );
    }
  } finally {
    await db.close();
  }
}

const dir = await Deno.makeTempDir({ prefix: "tollgate_bench_usage_" });
try {
  const path = `${dir}/usage.db`;
  await measure("SQLite file", `file:${path}`, async () => {
    const file = openSqliteFile(path);
    try {
      const result = await migrate(file.client, MIGRATIONS.slice(0, 5));
      if (result.error) throw new Error(result.error.message);
      await file.client.batch(fillStatements(false));
    } finally {
      await file.close();
    }
  });
  if (values.postgres) {
    const cluster = await startPostgres();
    try {
      const url = await cluster.createDatabase();
      await measure("PostgreSQL", url, async () => {
        const pool = new pg.Pool({ connectionString: url });
        try {
          const result = await migratePostgres(pool, POSTGRES_MIGRATIONS.slice(0, 2));
          if (result.error) throw new Error(result.error.message);
          for (const statement of fillStatements(true)) await pool.query(statement);
          await pool.query("ANALYZE");
        } finally {
          await pool.end();
        }
      });
    } finally {
      await cluster.close();
    }
  }
} finally {
  if (!Deno.env.get("KEEP")) await Deno.remove(dir, { recursive: true });
  else console.log(dir);
}
