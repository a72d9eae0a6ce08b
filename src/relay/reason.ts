/**
 * The reasons records keep of failed attempts and requests (the ledger row's, each
 * attempt's): what the client was told is the error catalogue's message, which never names
 * an upstream's address; a record names it, with the upstream's own error text (its
 * secrets already redacted where the text entered, upstream/call.ts).
 */
import type { AttemptRecord } from "../billing/attempt_record.ts";
import type { GatewayError } from "../errors.ts";
import type { Attempt } from "../routing/router.ts";
import type { UpstreamFailure } from "../upstream/call.ts";

/** The channel's address (host and port), when it has one (not the echo channel). */
export function addressOf(attempt: Attempt): string | undefined {
  const url = attempt.channel.base_url;
  if (!url) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/** A failed attempt's reason: the failure, where it happened, and the upstream's own words. */
export function attemptReason(
  failure: UpstreamFailure,
  address: string | undefined,
  redact: (text: string) => string,
): string {
  const at = address ? ` at ${address}` : "";
  switch (failure.kind) {
    case "network": {
      const cause = failure.cause instanceof Error ? failure.cause.message : undefined;
      if (failure.message !== "The upstream could not be reached.") {
        return `${failure.message}${address ? ` (${address})` : ""}`;
      }
      return `The upstream${at} could not be reached${cause ? `: ${redact(cause)}` : "."}`;
    }
    case "status": {
      const words = failure.upstreamMessage ?? failure.upstreamText;
      if (failure.message.startsWith("The upstream answered HTTP")) {
        return `The upstream${at} answered HTTP ${failure.status}${words ? `: ${words}` : "."}`;
      }
      return `${failure.message}${address ? ` (${address})` : ""}`;
    }
    case "timeout":
      return `${failure.message}${address ? ` (${address})` : ""}`;
    default:
      return failure.message;
  }
}

/**
 * A failed request's reason on its ledger row: the client's error, then what its last
 * failed attempt says, when that says more.
 */
export function requestReason(error: GatewayError, attempts: readonly AttemptRecord[]): string {
  const last = attempts.findLast((attempt) => attempt.outcome === "failed" && attempt.reason);
  if (!last?.reason || error.message.includes(last.reason)) return error.message;
  return `${error.message} Last attempt (${last.channel}): ${last.reason}`;
}
