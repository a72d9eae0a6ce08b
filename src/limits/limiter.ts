/**
 * The limiter's interface: rate (rpm), tokens-per-minute (tpm) and concurrency limits
 * of design.md, per key, per account and per model. The route only takes, settles and
 * releases; where the counts live (this process's memory, or a database shared by
 * several gateway processes) is the implementation's business.
 */
import type { Principal } from "../auth/principal.ts";
import type { Config } from "../config/schema.ts";
import type { GatewayError } from "../errors.ts";

/** What one request asks of the limits. */
export interface LimitRequest {
  /** The config the request started with: its limits apply. */
  config: Config;
  principal: Principal;
  model: string;
  /** The request's input tokens as estimated at admission; counted toward tpm at once. */
  inputTokens: number;
}

/** An admitted request's share of the limits, given back as the request ends. */
export interface Admission {
  /** The `x-ratelimit-*` headers for every answer of this request; undefined: no rate limit. */
  readonly headers: Readonly<Record<string, string>> | undefined;
  /**
   * Counts the output tokens the request was billed for toward tpm. Called once; never
   * rejects (a shared store logs its own failures: the answer has gone out already).
   */
  settle(outputTokens: number): Promise<void>;
  /** Gives the concurrency slot back; any call after the first does nothing. Never rejects. */
  release(): Promise<void>;
}

/** Admits requests under the limits of the config they carry. */
export interface Limiter {
  /**
   * Admits a request, counting it (and its input tokens) at once, or refuses it with a
   * 429 `rate_limit_exceeded` carrying `Retry-After` and the `x-ratelimit-*` headers.
   */
  take(request: LimitRequest): Promise<Admission | GatewayError>;
}

/** The admission of a request no limit applies to: nothing to count or give back. */
export const UNLIMITED: Admission = Object.freeze({
  headers: undefined,
  settle: () => Promise.resolve(),
  release: () => Promise.resolve(),
});
