/** Errors of translation: a request field the target cannot honour, and upstream stream errors. */
import { GatewayError } from "../errors.ts";
import type { Codec } from "./codec.ts";
import type { IrStreamError } from "./ir.ts";

/** The 400 for a client field that cannot be translated to the channel's protocol. */
export function convertError(field: string, why: string): GatewayError {
  return new GatewayError(
    400,
    "convert_request_failed",
    `Cannot translate \`${field}\` for this model's channel: ${why}.`,
    { param: field },
  );
}

/**
 * The client's error for an upstream stream error: an upstream overloaded is the client
 * protocol's overload (`overloadedStatus`: messages clients' 529 `overloaded_error`, 503
 * for the others').
 */
export function upstreamStreamError(
  error: IrStreamError,
  client: Pick<Codec, "overloadedStatus">,
): GatewayError {
  const detail = error.message ? `: ${error.message}` : ".";
  if (error.status === 529 || error.type === "overloaded_error") {
    return client.overloadedStatus === 529
      ? new GatewayError(529, "overloaded_error", `The upstream is overloaded${detail}`)
      : new GatewayError(503, "channel:no_available_key", `The upstream is overloaded${detail}`);
  }
  if (error.status === 429) {
    return new GatewayError(429, "rate_limit_exceeded", `The upstream is rate limited${detail}`);
  }
  return new GatewayError(502, "upstream_error", `The upstream stream failed${detail}`);
}
