/** Entry-point exposure: `[server] entry_points` names the entry points a gateway serves. */
import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../errors.ts";
import type { Protocol } from "../protocols/protocol.ts";
import type { GatewayEnv } from "./request_context.ts";

/** 404 for an entry point the config does not expose (checked per request: config reloads). */
export function exposed(entry: Protocol): MiddlewareHandler<GatewayEnv> {
  return function exposed(c, next) {
    const enabled: readonly string[] = c.get("snapshot").config.server.entry_points;
    if (!enabled.includes(entry.name)) {
      throw new GatewayError(
        404,
        "not_found",
        `The ${entry.name} entry point is not enabled on this gateway; enabled: ${
          enabled.join(", ") || "none"
        }.`,
      );
    }
    return next();
  };
}
