/**
 * POST /v1/embeddings, behind the body limit and authentication: the request flow of
 * design.md for an embeddings request (OpenAI's shape), one step a line. A model none of
 * whose channels embeds (only chat channels and the echo do) is the client's 400, before
 * any limit counts it; the exchange itself is relay/embed.ts's.
 */
import type { Context } from "hono";
import type { Config } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { likelyInputTokens } from "../billing/estimate.ts";
import { parseEmbeddingsRequest } from "../protocols/chat/embeddings.ts";
import { protocolOf } from "../protocols/index.ts";
import { embed, embeds } from "../relay/embed.ts";
import type { RoutePlan } from "../routing/router.ts";
import { bodyLimits, readJsonBody } from "./body.ts";
import type { RelayDeps } from "./relay.ts";
import type { GatewayEnv } from "./request_context.ts";

/** The embeddings handler. */
export function embeddingsHandler(deps: RelayDeps) {
  const chat = protocolOf("chat");
  return async function embeddings(c: Context<GatewayEnv>): Promise<Response> {
    const config = c.get("snapshot").config;
    const record = c.get("record");
    const principal = c.get("principal");
    record.entry = "embeddings";
    const body = await readJsonBody(c.req.raw, bodyLimits(config), deps.clock);
    const request = parseEmbeddingsRequest(body.value);
    const model = request.fields.model;
    record.model = model;
    const plan = deps.router.plan(config, principal, model, chat);
    checkEmbeds(config, plan, model);
    const admission = await deps.limiter.take({
      config,
      principal,
      model,
      inputTokens: likelyInputTokens(body.raw.byteLength),
    });
    if (admission instanceof GatewayError) throw admission;
    if (admission.headers) c.set("limitHeaders", admission.headers);
    try {
      return await embed(deps, {
        principal,
        requestId: c.get("requestId"),
        config,
        record,
        headers: c.req.raw.headers,
        search: "",
        signal: c.req.raw.signal,
        finished: c.get("finished"),
      }, { request, raw: body.raw, plan, admission });
    } catch (error) {
      await admission.release();
      throw error;
    }
  };
}

/** A 400 naming what the model's channels speak, when none of them embeds. */
function checkEmbeds(config: Config, plan: RoutePlan, model: string): void {
  const channels = config.channels.filter((channel) =>
    plan.models.some((name) => channel.models.includes(name))
  );
  if (channels.some(embeds)) return;
  const speak = [...new Set(channels.map((channel) => channel.protocol))].join(", ");
  throw new GatewayError(
    400,
    "invalid_request",
    `Model "${model}" cannot make embeddings: its channels speak ${speak}, and embeddings ` +
      'are served by channels of protocol "chat" (OpenAI-compatible upstreams) and "echo". ' +
      "Ask for an embedding model, or ask the operator to add one.",
    { param: "model" },
  );
}
