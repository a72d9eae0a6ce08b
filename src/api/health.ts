/**
 * GET /healthz (the process is alive) and GET /readyz (it can serve: config loaded,
 * database reachable, a channel usable), without a key, for load balancers, systemd
 * and container runtimes.
 */
import { hash } from "node:crypto";
import type { Config } from "../config/schema.ts";
import type { Context } from "hono";
import type { GatewayEnv } from "./request_context.ts";
import type { Router } from "../routing/router.ts";
import { perConfig } from "../config/per_config.ts";

/** How long /readyz waits for the database before calling it unreachable. */
const DATABASE_CHECK_MS = 2_000;

/** Always 200 while the process runs. */
export function healthz(): () => Response {
  return function healthz() {
    return Response.json({ status: "ok" });
  };
}

/** A short hash of the loaded config, so nodes running different configs stand out. */
const configHash = perConfig((config: Config) =>
  hash("sha256", JSON.stringify(config), "hex").slice(0, 16)
);

/** 200 when ready to serve, else 503, with each check's result either way. */
export function readyz(options: {
  router: Router;
  databaseReady?: () => Promise<boolean>;
}): (c: Context<GatewayEnv>) => Promise<Response> {
  return async function readyz(c) {
    const { config, version } = c.get("snapshot");
    const channels = options.router.channelStates(config);
    const usable = channels.filter((state) => state.up).length;
    const database = await reachable(options.databaseReady);
    const ready = database && usable > 0;
    return Response.json({
      status: ready ? "ready" : "not ready",
      config: { version, hash: configHash(config) },
      database: database ? "ok" : "unreachable",
      channels: { usable, total: channels.length },
    }, { status: ready ? 200 : 503 });
  };
}

async function reachable(check: (() => Promise<boolean>) | undefined): Promise<boolean> {
  if (!check) return true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), DATABASE_CHECK_MS);
  });
  try {
    return await Promise.race([check().catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
