/**
 * The serving process: opens the database, recovers holds, builds the app, listens,
 * reloads the config on change and SIGHUP, and drains in-flight requests on shutdown.
 */
import process from "node:process";
import { lazyAdminService } from "./admin/lazy_service.ts";
import { createSessions } from "./admin/sessions.ts";
import { createApp } from "./app.ts";
import { databaseKeyLookup } from "./auth/database_lookup.ts";
import { generateKeyId, generateKeySecret, hashKeySecret, keyPrefix } from "./auth/keys.ts";
import { createLedgerAccounting } from "./billing/ledger_accounting.ts";
import { HEARTBEAT_MS, recoverHolds } from "./billing/recovery.ts";
import { databaseUrl, loadConfig } from "./config/load.ts";
import { readTls } from "./config/tls.ts";
import { createConfigStore, watchConfigFile } from "./config/store.ts";
import { CHANNEL_ROLLUP_KEEP_MS, pruneChannelRollup } from "./db/channel_rollup_rows.ts";
import { openServingDatabase, type ServingDb } from "./db/database.ts";
import { createFirstKey } from "./db/first_key.ts";
import { describeError, type Logger } from "./log.ts";
import type { LineWriter } from "./observability/line_writer.ts";
import { createMetrics } from "./observability/metrics.ts";
import { createObserver } from "./observability/observer.ts";
import { createRefusalLog } from "./observability/refusal_log.ts";
import { loadTelemetry } from "./observability/telemetry.ts";
import { insertRefusals, pruneRefusals } from "./db/refusal_rows.ts";
import { createRouter } from "./routing/router.ts";
import { createStoredResponses } from "./stored/stored_responses.ts";
import { createHttpClient } from "./upstream/http1/client.ts";
import { AlarmClock } from "./clock/alarm_clock.ts";
import { servingAlerts } from "./alerts/serving.ts";
import { createWebhookPost, type WebhookPost } from "./upstream/webhook_post.ts";

/** A running gateway. */
export interface RunningServer {
  /** The address it listens on, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** The secret of the first key, when this start created it (first run only). */
  firstKey?: string;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
  /**
   * Resolves once every settlement begun so far is in the ledger (answers go out first),
   * every hold taken so far is in the database, and every refusal so far in its records.
   */
  settled(): Promise<void>;
  /** Re-reads the config file now, as a file change or SIGHUP would. */
  reload(): Promise<void>;
  /** Stops accepting, drains in-flight requests, and closes everything. */
  shutdown(): Promise<void>;
}

/** Refusal records removed by one statement at most. */
const REFUSALS_PRUNED = 10_000;

/** How often expired stored responses are looked for. */
const EXPIRY_INTERVAL_MS = 60_000;

/** Splits `host:port` (IPv6 hosts in brackets). */
export function parseListen(listen: string): { hostname: string; port: number } {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(listen.trim());
  if (!match) throw new Error(`Invalid server.listen "${listen}": write it as "host:port".`);
  return { hostname: match[1] || "0.0.0.0", port: Number(match[2]) };
}

/** Creates the `admin` account and its first key when the database has no keys at all. */
async function bootstrapFirstKey(db: ServingDb, now: number): Promise<string | undefined> {
  if (await db.store.hasKeys()) return undefined;
  const secret = generateKeySecret();
  await createFirstKey(db.client, {
    id: generateKeyId(),
    hash: hashKeySecret(secret),
    prefix: keyPrefix(secret),
    createdAt: now,
  });
  return secret;
}

/** Starts the gateway from a config file; `port` overrides the configured port (0 for tests). */
export async function startServer(options: {
  configPath: string;
  log: Logger;
  port?: number;
  now?: () => number;
  /** The clock of deadlines, keep-alives and retry pauses (tests move one by hand). */
  clock?: AlarmClock;
  /** Where the request log goes; stdout by default. */
  requestLog?: LineWriter;
  /** How alert webhooks are posted; fetch by default. */
  webhookPost?: WebhookPost;
  /**
   * The clock of the alerts' delivery worker (its look each second, retries); the
   * runtime's timers by default, not `clock`, so that tests moving `clock` fast do not make
   * it look at the database at each step.
   */
  alertsClock?: AlarmClock;
}): Promise<RunningServer> {
  const now = options.now ?? Date.now;
  const { log } = options;
  const config = await loadConfig(options.configPath);
  const db = await openServingDatabase(databaseUrl(config));
  const migration = await db.migrate();
  if (migration.error) {
    db.close();
    throw new Error(
      `Migrating the database failed at ${migration.error.name}: ${migration.error.message}`,
    );
  }
  const firstKey = await bootstrapFirstKey(db, now());
  const identity = {
    id: `inst_${crypto.randomUUID()}`,
    host: Deno.hostname(),
    pid: Deno.pid,
    isProcessAlive: isProcessAlive,
  };
  const released = await recoverHolds(db, identity, now());
  if (released > 0) log.warn("released holds left by a stopped server", { holds: released });
  const keeper = setInterval(() => {
    recoverHolds(db, identity, now()).catch((error) =>
      log.error("hold recovery failed", { error: describeError(error) })
    );
  }, HEARTBEAT_MS);
  const responses = createStoredResponses({
    rows: () => db.storedResponses(),
    now,
  });
  // Stored responses past [responses] retention_days are removed in the background (reads
  // already ignore them), a batch a minute, and so are the channels' minutes past two days.
  const expiry = setInterval(() => {
    responses.expire().catch((error) =>
      log.error("removing expired responses failed", { error: describeError(error) })
    );
    pruneChannelRollup(db.client, now() - CHANNEL_ROLLUP_KEEP_MS).catch((error) =>
      log.error("removing old channel figures failed", { error: describeError(error) })
    );
    const keepDays = store.current().config.observability.request_log_days;
    pruneOldRefusals(now() - keepDays * 86_400_000).catch((error) =>
      log.error("removing old refusal records failed", { error: describeError(error) })
    );
  }, EXPIRY_INTERVAL_MS);

  const store = createConfigStore(config, { now });
  /** Refusal records older than `before`, removed in batches, up to 20 a minute. */
  const pruneOldRefusals = async (before: number) => {
    for (let round = 0; round < 20; round++) {
      if (await pruneRefusals(db.client, before, REFUSALS_PRUNED) < REFUSALS_PRUNED) return;
    }
  };
  const alerts = servingAlerts({
    db,
    config: () => store.current().config,
    now,
    clock: options.alertsClock ?? new AlarmClock(),
    log,
    instanceId: identity.id,
    onDelivery: (result) => observer.metrics.webhookDelivery(result),
    post: options.webhookPost,
  });
  const router = createRouter({ now, onChannelHealth: alerts.channelHealth });
  // Refused requests' records, written in batches off the request path.
  const refusals = createRefusalLog({
    write: (rows) => insertRefusals(db.client, rows),
    now,
    onError: (error) =>
      log.error("writing refusal records failed", { error: describeError(error) }),
  });
  const observer = createObserver({
    metrics: createMetrics(() => router.channelStates(store.current().config)),
    writer: options.requestLog,
    refusals,
  });
  const watcher = watchConfigFile(store, options.configPath, {
    onReload: (snapshot) => {
      observer.metrics.configReloaded(true);
      log.info("config reloaded", { version: snapshot.version });
      if (snapshot.config.server.listen !== config.server.listen) {
        log.warn("server.listen changed: restart tollgate to listen on the new address");
      }
    },
    onError: (error) => {
      observer.metrics.configReloaded(false);
      log.error("config reload rejected, keeping the previous config", {
        error: describeError(error),
      });
    },
  });
  const accounting = createLedgerAccounting({ store: db.store, instanceId: identity.id, now, log });
  // Aborted once the shutdown grace period is over, ending the requests still running.
  const graceOver = new AbortController();
  const upstream = createHttpClient();
  const app = createApp({
    config: store,
    lookupKey: databaseKeyLookup(db.store),
    accounting,
    log,
    now,
    clock: options.clock,
    upstream,
    shutdownSignal: graceOver.signal,
    router,
    observer,
    telemetry: await loadTelemetry(),
    // On PostgreSQL the limits are counted in the database every node shares; on SQLite
    // (one process) in this process's memory, the app's default.
    limiter: db.kind === "postgres"
      ? (await import("./limits/postgres_limiter.ts")).createPostgresLimiter({
        client: db.client,
        instanceId: identity.id,
        isUnavailable: (error) => db.isUnavailable(error),
        log,
      })
      : undefined,
    databaseReady: () => db.store.ping().then(() => true),
    responses,
    // The dashboard and its API: the database's query builder loads at their first use.
    admin: {
      service: lazyAdminService({
        queries: () => db.queries(),
        config: () => store.current().config,
        configPath: options.configPath,
        now,
        health: { router, stats: observer.metrics.channels },
        upstream: { client: upstream, clock: options.clock ?? new AlarmClock() },
        alerts: { outbox: alerts.outbox, post: options.webhookPost ?? createWebhookPost() },
        pendingRefusals: () => refusals.pending(),
      }),
      sessions: createSessions({ queries: () => db.queries(), now }),
    },
  });

  const listen = parseListen(config.server.listen);
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname: listen.hostname,
    port: options.port ?? listen.port,
    ...await readTls(config.server, options.configPath),
    onListen: (address) => listening.resolve(address as Deno.NetAddr),
    onError: (error) => {
      log.error("serving a request failed", { error: describeError(error) });
      return new Response("The gateway failed to answer.", { status: 500 });
    },
  }, app.fetch);
  const address = await listening.promise;
  alerts.start();
  const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;

  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    stopping ??= (async () => {
      watcher.close();
      clearInterval(keeper);
      clearInterval(expiry);
      // Stop accepting at once; requests in flight get the grace period to finish, then
      // end with their protocol's error and settle (the server waits for that too).
      const grace = setTimeout(
        () => graceOver.abort(),
        store.current().config.server.shutdown_grace_ms,
      );
      await server.shutdown();
      clearTimeout(grace);
      upstream.close();
      // Answers went out before their ledger rows: write every one before closing.
      await accounting.drain();
      await refusals.close();
      await observer.flush();
      await alerts.stop();
      await db.store.removeInstances([identity.id]).catch(() => {});
      await db.close();
    })();
  return {
    url: `${config.server.tls_cert ? "https" : "http"}://${host}:${address.port}`,
    firstKey,
    finished: server.finished,
    settled: async () => {
      await accounting.drain();
      await refusals.flush();
    },
    reload: watcher.reload,
    shutdown,
  };
}

/** Whether a process of this host is running (signal 0 probes without signalling). */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}
