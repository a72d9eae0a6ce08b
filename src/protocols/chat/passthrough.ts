/**
 * A chat request relayed to a chat channel: its model mapped and, for a stream that did not
 * ask for usage, usage asked for (the gateway bills by it), the usage-only chunk that then
 * comes left out of what the client sees.
 */
import type { ClientRequest, Passthrough } from "../../translate/codec.ts";
import { asRecord } from "../json_read.ts";
import { withFirstMember } from "../json_splice.ts";
import { modelMapped } from "../passthrough.ts";
import { reportsUsage } from "./usage.ts";

/** What a chat stream's body gets when its client did not ask for usage. */
const USAGE_REQUESTED = '"stream_options":{"include_usage":true}';

/** The passthrough of a chat request. */
export function chatPassthrough(request: ClientRequest): Passthrough {
  const mapped = modelMapped(request);
  const { body } = request;
  if (!request.stream || asRecord(body.stream_options)?.include_usage === true) return mapped;
  return {
    body(upstreamModel) {
      const options = typeof body.stream_options === "object" && body.stream_options !== null
        ? body.stream_options
        : {};
      return { ...mapped.body(upstreamModel), stream_options: { ...options, include_usage: true } };
    },
    // The client's bytes with the request for usage written first; other stream options of
    // the client's are kept by writing the body anew.
    bytes(upstreamModel, raw) {
      const bytes = mapped.bytes(upstreamModel, raw);
      if (!bytes) return bytes;
      return body.stream_options === undefined
        ? withFirstMember(bytes, USAGE_REQUESTED)
        : undefined;
    },
    hides: (event) => isChatUsageChunk(event.data),
  };
}

/** Whether a chat chunk carries only usage (`choices: []`), as `include_usage` adds at the end. */
export function isChatUsageChunk(data: string): boolean {
  if (!reportsUsage(data)) return false;
  try {
    const chunk = JSON.parse(data);
    return Array.isArray(chunk?.choices) && chunk.choices.length === 0 && chunk.usage != null;
  } catch {
    return false;
  }
}
