/**
 * Named faults as behaviours, and scripts of them: what a failover test asks a fake
 * upstream for. Each error is in the provider's own shape and words (./provider_errors.ts).
 */
import type { Behaviour, FakeError, FaultName, Plan, Step } from "./behaviour.ts";
import { contentPolicyError, contextLengthError } from "./provider_errors.ts";

/** How many requests an error answers (omitted: all of them). */
export interface Times {
  times?: number;
}

/** A `Retry-After` to send, in seconds. */
export interface RetryAfter {
  retryAfter?: number;
}

function retryAfter({ retryAfter }: RetryAfter) {
  return retryAfter === undefined ? undefined : { "retry-after": String(retryAfter) };
}

/** 429 in the provider's rate-limit shape, with `Retry-After: retryAfter` (seconds) if given. */
export function rateLimited(options: Times & RetryAfter = {}): Behaviour {
  return { error: { status: 429, times: options.times, headers: retryAfter(options) } };
}

/** 500: OpenAI's `server_error`, Anthropic's `api_error`. */
export function serverError(options: Times = {}): Behaviour {
  return { error: { status: 500, times: options.times } };
}

/** 503: OpenAI's `server_error` ("The engine is currently overloaded"), Anthropic's `api_error`. */
export function unavailable(options: Times & RetryAfter = {}): Behaviour {
  return { error: { status: 503, times: options.times, headers: retryAfter(options) } };
}

/** 529 `overloaded_error`, Anthropic's overload. */
export function overloaded(options: Times = {}): Behaviour {
  return { error: { status: 529, times: options.times } };
}

/**
 * 400 `context_length_exceeded` in each provider's words, for every request (the numbers
 * as given, else the providers' examples). `contextWindow` refuses by the prompt's size.
 */
export function contextExceeded(counts: { window?: number; tokens?: number } = {}): Behaviour {
  return { error: contextLengthError(counts) };
}

/** 400 content policy: OpenAI's `content_policy_violation` (Azure's `content_filter`). */
export function contentPolicy(options: { azure?: boolean } = {}): Behaviour {
  return { error: contentPolicyError(options.azure) };
}

/** A properly ended answer with no text at all. */
export function emptyAnswer(): Behaviour {
  return { reply: { text: "" } };
}

const NAMED: Record<FaultName, () => Behaviour> = {
  ok: () => ({}),
  reset: () => ({ reset: true }),
  hang: () => ({ hang: true }),
  "429": () => rateLimited(),
  "500": () => serverError(),
  "503": () => unavailable(),
  "529": () => overloaded(),
};

/** The behaviour a script step stands for. */
export function fault(step: Step): Behaviour {
  return typeof step === "string" ? NAMED[step]() : step;
}

/**
 * Behaviours request after request, as `plan` says; `times` of an error counts the
 * requests answered with that error object.
 */
export function scriptOf(plan: Plan): () => Behaviour {
  const cycle = typeof plan === "object" && "cycle" in plan;
  const list = cycle ? plan.cycle : Array.isArray(plan) ? plan : [plan];
  const steps = list.length === 0 ? [{}] : list.map(fault);
  const used = new Map<FakeError, number>();
  let taken = 0;
  return () => {
    const index = cycle ? taken % steps.length : Math.min(taken, steps.length - 1);
    taken++;
    const step = steps[index]!;
    const error = step.error;
    if (!error) return step;
    const count = used.get(error) ?? 0;
    if (error.times !== undefined && count >= error.times) return { ...step, error: undefined };
    used.set(error, count + 1);
    return step;
  };
}
