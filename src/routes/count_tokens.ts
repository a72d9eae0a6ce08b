/**
 * POST /v1/messages/count_tokens (Claude Code calls it before requests): relayed to
 * a messages channel of the model when there is one, else estimated locally. It is
 * free: no hold, no ledger row.
 */
import type { Handler } from "hono";
import type { AppEnv } from "../app_env.ts";
import { estimateUsage } from "../billing/estimate.ts";
import { GatewayError } from "../errors.ts";
import { parseCountTokensRequest } from "../protocols/messages/index.ts";
import { sendWithFailover } from "../relay/failover.ts";
import { readJsonBody } from "../relay/body.ts";
import type { RoutePlan } from "../routing/router.ts";
import type { RelayDeps } from "./relay.ts";

/** A plan that hands out only the attempts whose channel speaks messages upstream. */
function messagesChannelsOf(plan: RoutePlan): RoutePlan {
  return {
    next() {
      for (let attempt = plan.next(); attempt; attempt = plan.next()) {
        if (attempt.channel.protocol === "messages") return attempt;
      }
      return undefined;
    },
    fail: plan.fail,
    succeed: plan.succeed,
  };
}

/** The local estimate, in the shape the messages API answers count_tokens with. */
function estimate(body: Record<string, unknown>): { input_tokens: number } {
  return { input_tokens: estimateUsage("messages", body, "").input_tokens };
}

/** The plan, or undefined when the model is served but by no messages channel: then estimate. */
function planOrEstimate(plan: () => RoutePlan): RoutePlan | undefined {
  try {
    return plan();
  } catch (error) {
    if (error instanceof GatewayError && error.code === "channel:no_available_key") {
      return undefined;
    }
    throw error;
  }
}

/** The count_tokens handler. */
export function countTokensRoute(deps: Omit<RelayDeps, "accounting">): Handler<AppEnv> {
  return async function countTokens(c) {
    const { config } = c.get("snapshot");
    const body = await readJsonBody(c.req.raw, config.server.max_body_bytes);
    const request = parseCountTokensRequest(body.value);
    const plan = planOrEstimate(
      () => deps.router.plan(config, c.get("principal"), request.model, "messages"),
    );
    if (!plan) return c.json(estimate(request.body));
    const search = new URL(c.req.url).search;
    const result = await sendWithFailover({
      plan: messagesChannelsOf(plan),
      entry: "messages",
      stream: false,
      clientSignal: c.req.raw.signal,
      timeoutsOf: (attempt) => ({ ...config.timeouts, ...attempt.channel.timeouts }),
      send: (attempt) =>
        deps.sender({
          attempt,
          operation: "count_tokens",
          entry: "messages",
          body: { ...request.body, model: attempt.upstreamModel },
          clientHeaders: c.req.raw.headers,
          search,
          stream: false,
        }),
    });
    if (result.ok) {
      result.served.exchange.finish();
      return c.body(result.served.body!.text, 200, { "content-type": "application/json" });
    }
    if (result.attempts > 0) throw result.error;
    return c.json(estimate(request.body));
  };
}
