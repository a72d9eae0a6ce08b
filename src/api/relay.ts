/**
 * POST /v1/chat/completions, /v1/responses and /v1/messages, behind their middleware
 * (exposure, body limit, forwarded headers, authentication): the request flow of design.md,
 * one step a line. Parsing is the protocol's (protocols/), the plan routing's, the limits
 * limits'; once admitted, the exchange with the upstreams is relay/'s. This file only
 * orchestrates.
 */
import type { Context } from "hono";
import type { Limiter } from "../limits/limiter.ts";
import type { Protocol } from "../protocols/protocol.ts";
import type { RequestRoute } from "../translate/codec.ts";
import { exchange, type ExchangeDeps } from "../relay/exchange.ts";
import type { Router } from "../routing/router.ts";
import { conversationName } from "../routing/conversation.ts";
import type { StoredResponses } from "../stored/stored_responses.ts";
import { admit } from "../limits/admit.ts";
import { bodyLimits, readJsonBody } from "./body.ts";
import { capturingContent } from "../observability/attempt_times.ts";
import { type GatewayEnv, queryOf } from "./request_context.ts";

/** What the entry points' handlers are built from. */
export interface RelayDeps extends ExchangeDeps {
  router: Router;
  limiter: Limiter;
  /** Stored responses: given to the responses entry point only. */
  responses?: StoredResponses;
}

const ENCODER = new TextEncoder();

/**
 * What an entry point's path says of its requests: its route (Gemini's model and streaming),
 * and whether its query may go to a channel that keeps the client's query (messages'
 * `?beta=true`); Gemini's holds the client's key, and never goes.
 */
export interface EntryPath {
  route(c: Context<GatewayEnv>): RequestRoute;
  forwardsQuery: boolean;
}

const BODY_ROUTED: EntryPath = { route: () => ({}), forwardsQuery: true };

/** The handler of an entry point of protocol `entry`, whose path says `path`. */
export function relayHandler(entry: Protocol, deps: RelayDeps, path: EntryPath = BODY_ROUTED) {
  return async function relay(c: Context<GatewayEnv>): Promise<Response> {
    const { config } = c.get("snapshot");
    const record = c.get("record");
    const principal = c.get("principal");
    record.entry = entry.name;
    const body = await readJsonBody(c.req.raw, bodyLimits(config), deps.clock);
    const parsed = entry.parseRequest(body.value, path.route(c));
    record.model = parsed.model;
    if (capturingContent()) record.input = messagesOf(parsed.body);
    const turn = await deps.responses?.begin(config, principal, parsed.body);
    // A resolved conversation is what the channel is sent, and what is billed.
    const request = turn?.resolved ? { ...parsed, body: turn.body } : parsed;
    const raw = turn?.resolved ? ENCODER.encode(JSON.stringify(turn.body)) : body.raw;
    // Named from what goes upstream: every turn of a stored chain starts as its first did.
    const conversation = conversationName(request, c.req.raw.headers, principal.id);
    const plan = deps.router.plan(config, principal, request.model, entry, conversation);
    const { admission, inputTokens, fits } = await admit(
      deps.limiter,
      config,
      principal,
      request,
      raw.byteLength,
      plan,
    );
    if (admission.headers) c.set("limitHeaders", admission.headers);
    try {
      return await exchange(deps, {
        principal,
        requestId: c.get("requestId"),
        config,
        record,
        headers: c.req.raw.headers,
        search: path.forwardsQuery ? queryOf(c) : "",
        signal: c.req.raw.signal,
        finished: c.get("finished"),
      }, {
        entry,
        request,
        echo: turn?.resolved ? parsed.body : undefined,
        raw,
        plan,
        admission,
        turn,
        conversation,
        inputTokens,
        fits,
      });
    } catch (error) {
      // Settlement gives the slot back on the paths that reach it; this covers the others,
      // before the refusal goes out, so that the client's next request finds the slot free.
      await admission.release();
      throw error;
    }
  };
}

/** A request's prompt as its spans carry it (content capture only): its messages or input. */
function messagesOf(body: Record<string, unknown>): string {
  const { system, instructions, messages, input } = body;
  return JSON.stringify({ system, instructions, messages, input });
}
