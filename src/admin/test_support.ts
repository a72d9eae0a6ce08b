/** For tests only: the admin service over a fresh SQLite file and a small config. */
import { join } from "node:path";
import { parseConfigText } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { type Db, openDatabase } from "../db/database.ts";
import type { Settle } from "../db/store.ts";
import type { ChannelHealthSource } from "./deps.ts";
import { type AdminService, createAdminService } from "./service.ts";

/** Groups `default` and `vip`; channels `main` (chat) and `spare` (messages). */
export const ADMIN_TEST_CONFIG = `
[groups.default]
[groups.vip]
[[channels]]
name = "main"
protocol = "chat"
base_url = "http://127.0.0.1:9/v1"
keys = ["k1", "k2"]
models = ["m"]
[[channels]]
name = "spare"
protocol = "messages"
base_url = "http://127.0.0.1:9"
keys = ["k3"]
models = ["m"]
`;

/** What a test of the service works with. */
export interface AdminFixture {
  admin: AdminService;
  db: Db;
  config: Config;
  /** The clock the service reads; tests move it. */
  clock: { now: number };
}

/** Runs `fn` with the service over a migrated temp database; removes it afterwards. */
export async function withAdmin(
  fn: (fixture: AdminFixture) => void | Promise<void>,
  health?: (config: Config) => ChannelHealthSource,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_admin_" });
  const db = await openDatabase(`file:${join(dir, "admin.db")}`);
  try {
    const migration = await db.migrate();
    if (migration.error) throw new Error(migration.error.message);
    const config = parseConfigText(ADMIN_TEST_CONFIG);
    const clock = { now: Date.parse("2030-01-01T00:00:00Z") };
    const admin = createAdminService({
      queries: () => Promise.resolve(db.kysely),
      config: () => config,
      now: () => clock.now,
      health: health?.(config),
    });
    await fn({ admin, db, config, clock });
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Settles a request into the ledger as the server does; what `request` leaves out is typical. */
export async function settleRequest(
  db: Db,
  request: Pick<Settle, "accountId" | "keyId" | "createdAt"> & Partial<Settle>,
): Promise<void> {
  const failures = await db.store.settleHold({
    holdId: `hold_${crypto.randomUUID()}`,
    requestId: `req_${crypto.randomUUID()}`,
    model: "m",
    entryPoint: "chat",
    channel: "main",
    upstreamModel: "m",
    attempts: 1,
    stream: false,
    status: "ok",
    reason: null,
    inputTokens: 10,
    outputTokens: 5,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    estimated: false,
    costMicros: 100,
    durationMs: 3,
    ...request,
  });
  if (failures.length > 0) throw new Error(`Settling failed: ${String(failures[0]!.error)}`);
}
