/**
 * What every protocol's encoders share: losses of translation reported once a request, the
 * usage an answer reports when its upstream said none, and a tool call's arguments as the
 * object the APIs that take an object want.
 */
import type { Usage } from "../usage.ts";
import type { RequestEncodeContext, ResponseEncodeContext } from "./codec.ts";

/** Notes one loss of translation (see `dropOnce`). */
export type Drop = (what: string, why: string) => void;

/** The context's `drop`, reporting each kind of loss once per request, not once per part. */
export function dropOnce(context: Pick<RequestEncodeContext, "drop">): Drop {
  const seen = new Set<string>();
  return (what, why) => {
    if (seen.has(what)) return;
    seen.add(what);
    context.drop(what, why);
  };
}

/** Usage to report when the upstream said none: the gateway's input estimate, no output. */
export function estimatedUsage(context: ResponseEncodeContext): Usage {
  return {
    input_tokens: context.inputTokensHint,
    output_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
  };
}

/** Arguments JSON as an object (`{}` when the model wrote none, or broken JSON). */
export function inputOf(args: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(args);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed;
  } catch {
    // Broken or empty arguments: the APIs require an object, so the call goes with none.
  }
  return {};
}
