/**
 * The limits step of a request's flow: the context window (stateless, so first: a request
 * too long for every model of its chain counts nowhere), then the rate and concurrency
 * limits, which count it.
 */
import type { Principal } from "../auth/principal.ts";
import { likelyInputTokens } from "../billing/estimate.ts";
import type { Config } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import type { EntryRequest } from "../protocols/types.ts";
import type { RoutePlan } from "../routing/router.ts";
import { checkContextWindow } from "./context_window.ts";
import type { Admission, Limiter } from "./limiter.ts";

/** A request admitted, with its input tokens when the context check counted them. */
export interface LimitsPassed {
  admission: Admission;
  /** Counted only when the body's size came near a model's window: never counted twice. */
  inputTokens?: number;
  /** The models of the chain the request fits (context windows). */
  fits: ReadonlySet<string>;
}

/**
 * Admits `request` or throws the limit's refusal. The plan keeps only the models whose
 * context window the request fits; none: the first model's 400.
 */
export async function admit(
  limiter: Limiter,
  config: Config,
  principal: Principal,
  request: EntryRequest,
  bodyBytes: number,
  plan: RoutePlan,
): Promise<LimitsPassed> {
  const fits = new Set<string>();
  let inputTokens: number | undefined;
  let refusal: GatewayError | undefined;
  for (const model of plan.models) {
    try {
      inputTokens ??= await checkContextWindow({
        request,
        model: config.models[model],
        bodyBytes,
        name: model,
        inputTokens,
      });
      fits.add(model);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      refusal ??= error;
    }
  }
  if (fits.size === 0) throw refusal!;
  if (refusal) plan.keepModels((model) => fits.has(model));
  const taken = await limiter.take({
    config,
    principal,
    model: request.model,
    inputTokens: inputTokens ?? likelyInputTokens(bodyBytes),
  });
  if (taken instanceof GatewayError) throw taken;
  return { admission: taken, inputTokens, fits };
}

/**
 * Whether `model` may take a request its upstream found too long for `refusing`: it fits
 * the request, and its window (when configured) is larger than the refusing model's.
 */
export function takesLonger(
  config: Config,
  fits: ReadonlySet<string>,
  refusing: string,
  model: string,
): boolean {
  if (model === refusing || !fits.has(model)) return false;
  const larger = config.models[model]?.context_window;
  const refused = config.models[refusing]?.context_window;
  return larger === undefined || refused === undefined || larger > refused;
}
