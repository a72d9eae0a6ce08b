/**
 * The limits step of a request's flow: the context window (stateless, so first: a request
 * too long for the model counts nowhere), then the rate and concurrency limits, which
 * count it.
 */
import type { Principal } from "../auth/principal.ts";
import { likelyInputTokens } from "../billing/estimate.ts";
import type { Config } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import type { EntryRequest } from "../protocols/types.ts";
import { checkContextWindow } from "./context_window.ts";
import type { Admission, Limiter } from "./limiter.ts";

/** A request admitted, with its input tokens when the context check counted them. */
export interface LimitsPassed {
  admission: Admission;
  /** Counted only when the body's size came near the model's window: never counted twice. */
  inputTokens?: number;
}

/** Admits `request` or throws the limit's refusal. */
export async function admit(
  limiter: Limiter,
  config: Config,
  principal: Principal,
  request: EntryRequest,
  bodyBytes: number,
): Promise<LimitsPassed> {
  const counted = await checkContextWindow({
    request,
    model: config.models[request.model],
    bodyBytes,
  });
  const taken = await limiter.take({
    config,
    principal,
    model: request.model,
    inputTokens: counted ?? likelyInputTokens(bodyBytes),
  });
  if (taken instanceof GatewayError) throw taken;
  return { admission: taken, inputTokens: counted };
}
