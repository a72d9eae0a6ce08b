/** The same-protocol translation: bodies and events go through untouched. */
import type { EntryProtocol } from "../config/schema.ts";
import type { ResponseTranslation } from "./translation.ts";

/**
 * Passes everything through, except the usage-only chunk of a chat stream when
 * tollgate asked for usage on the client's behalf and the client did not.
 */
export function passthrough(
  protocol: EntryProtocol,
  options: { hideChatUsageChunk: boolean },
): ResponseTranslation {
  const hide = protocol === "chat" && options.hideChatUsageChunk;
  return {
    body: (text) => text,
    stream: () => ({
      event: (event) => (hide && isChatUsageChunk(event.data) ? [] : [event]),
    }),
  };
}

/** Whether a chat chunk carries only usage (`choices: []`), as `include_usage` adds at the end. */
export function isChatUsageChunk(data: string): boolean {
  if (!data.includes('"usage"')) return false;
  try {
    const chunk = JSON.parse(data);
    return Array.isArray(chunk?.choices) && chunk.choices.length === 0 && chunk.usage != null;
  } catch {
    return false;
  }
}

/**
 * The upstream body of a same-protocol relay: the client's body with only `model`
 * mapped and, for chat streams, usage requested so the upstream reports it.
 */
export function passthroughRequest(
  protocol: EntryProtocol,
  body: Record<string, unknown>,
  upstreamModel: string,
  stream: boolean,
): Record<string, unknown> {
  const upstream: Record<string, unknown> = { ...body, model: upstreamModel };
  if (protocol === "chat" && stream) {
    const options = typeof body.stream_options === "object" && body.stream_options !== null
      ? body.stream_options
      : {};
    upstream.stream_options = { ...options, include_usage: true };
  }
  return upstream;
}
