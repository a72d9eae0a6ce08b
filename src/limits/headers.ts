/**
 * The `x-ratelimit-*` headers the OpenAI API sends
 * (https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers), so
 * clients and SDKs that pace themselves by them work against tollgate unchanged.
 */

/** One limit's state as the headers report it. */
export interface LimitState {
  limit: number;
  /** What is left of the limit now (never below zero). */
  remaining: number;
  /** Milliseconds until the window is back to its initial state. */
  resetMs: number;
}

/** The headers for a request limit and a token limit; undefined when neither applies. */
export function rateLimitHeaders(
  requests: LimitState | undefined,
  tokens: LimitState | undefined,
): Record<string, string> | undefined {
  if (!requests && !tokens) return undefined;
  const headers: Record<string, string> = {};
  if (requests) {
    headers["x-ratelimit-limit-requests"] = String(requests.limit);
    headers["x-ratelimit-remaining-requests"] = String(Math.max(0, requests.remaining));
    headers["x-ratelimit-reset-requests"] = formatReset(requests.resetMs);
  }
  if (tokens) {
    headers["x-ratelimit-limit-tokens"] = String(tokens.limit);
    headers["x-ratelimit-remaining-tokens"] = String(Math.max(0, Math.floor(tokens.remaining)));
    headers["x-ratelimit-reset-tokens"] = formatReset(tokens.resetMs);
  }
  return headers;
}

/**
 * A duration as OpenAI writes its reset headers (Go's duration format): `120ms`, `1s`,
 * `17.5s`, `6m0s`.
 */
export function formatReset(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  if (whole === 0) return "0s";
  if (whole < 1000) return `${whole}ms`;
  const minutes = Math.floor(whole / 60_000);
  // Seconds with up to three decimals and no trailing zeros (17.5s, not 17.500s).
  const seconds = String((whole - minutes * 60_000) / 1000);
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}
