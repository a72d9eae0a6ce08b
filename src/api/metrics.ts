/**
 * GET /metrics: the Prometheus exposition. Off with `[server] metrics = false`; with a
 * `metrics_token` it needs that token as a Bearer credential (an API key does not do).
 */
import type { Context } from "hono";
import type { GatewayEnv } from "./request_context.ts";
import { hashKeySecret, timingSafeEqualText } from "../auth/keys.ts";
import { GatewayError } from "../errors.ts";
import type { Metrics } from "../observability/metrics.ts";

/** The /metrics handler. */
export function metricsRoute(metrics: Metrics): (c: Context<GatewayEnv>) => Promise<Response> {
  return async function metricsRoute(c) {
    const server = c.get("snapshot").config.server;
    if (!server.metrics) {
      throw new GatewayError(
        404,
        "not_found",
        "Metrics are off on this gateway ([server] metrics).",
      );
    }
    if (server.metrics_token !== "") {
      const authorization = c.req.header("authorization") ?? "";
      const sent = /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim() ?? "";
      // Digests have one length, so the comparison's time says nothing about the token.
      if (!timingSafeEqualText(hashKeySecret(sent), hashKeySecret(server.metrics_token))) {
        throw new GatewayError(
          401,
          "authentication_error",
          "Metrics need `Authorization: Bearer <metrics_token>` ([server] metrics_token).",
        );
      }
    }
    const { text, contentType } = await metrics.render();
    return new Response(text, { headers: { "content-type": contentType } });
  };
}
