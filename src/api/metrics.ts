/**
 * GET /metrics: the Prometheus exposition. Off with `[server] metrics = false`; with a
 * `metrics_token` it needs that token as a Bearer credential (an API key does not do).
 */
import type { RequestContext } from "./request_context.ts";
import { hashKeySecret, timingSafeEqualText } from "../auth/keys.ts";
import { GatewayError } from "../errors.ts";
import type { Metrics } from "../observability/metrics.ts";

/** The /metrics handler. */
export function metricsRoute(metrics: Metrics): (context: RequestContext) => Promise<Response> {
  return async function metricsRoute(context) {
    const server = context.snapshot.config.server;
    if (!server.metrics) {
      throw new GatewayError(
        404,
        "not_found",
        "Metrics are off on this gateway ([server] metrics).",
      );
    }
    if (server.metrics_token !== "") {
      const authorization = context.headers.get("authorization") ?? "";
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
