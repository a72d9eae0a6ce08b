/**
 * An entry protocol's token count (`POST /v1/messages/count_tokens`): the count's request
 * parsed and planned here, counted by relay/count_tokens.ts, answered in the protocol's shape.
 */
import type { Context } from "hono";
import type { Protocol } from "../protocols/protocol.ts";
import { countTokens } from "../relay/count_tokens.ts";
import { bodyLimits, readJsonBody } from "./body.ts";
import type { EntryPath, RelayDeps } from "./relay.ts";
import { type GatewayEnv, queryOf } from "./request_context.ts";

/** The count handler of `entry`, a protocol with a token-count endpoint (`path`: as relayHandler's). */
export function countTokensHandler(
  entry: Protocol,
  deps: Omit<RelayDeps, "accounting">,
  path?: EntryPath,
) {
  const endpoint = entry.countTokens;
  if (!endpoint) throw new Error(`The ${entry.name} protocol has no token-count endpoint.`);
  return async function countTokensHandler(c: Context<GatewayEnv>): Promise<Response> {
    const { config } = c.get("snapshot");
    const principal = c.get("principal");
    const requestId = c.get("requestId");
    const body = await readJsonBody(c.req.raw, bodyLimits(config), deps.clock);
    const { model, body: counted } = endpoint.parseRequest(body.value, path?.route(c) ?? {});
    const plan = deps.router.plan(config, principal, model, entry);
    const count = await countTokens(deps, {
      requestId,
      config,
      headers: c.req.raw.headers,
      search: path?.forwardsQuery === false ? "" : queryOf(c),
      signal: c.req.raw.signal,
    }, { entry, model, body: counted, plan });
    if ("relayed" in count) {
      return new Response(count.relayed, { headers: { "content-type": "application/json" } });
    }
    return Response.json(endpoint.answer(count.tokens));
  };
}
