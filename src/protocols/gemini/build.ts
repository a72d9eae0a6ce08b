/**
 * Builds Gemini replies of the echo channel: the `GenerateContentResponse` and its
 * `streamGenerateContent?alt=sse` chunks (response_shape.ts).
 */
import type { SseEvent } from "../../translate/sse.ts";
import type { TextReply } from "../types.ts";
import { CLOSING_PART, type ResponseFields, responseOf } from "./response_shape.ts";

// `FinishReason` (Gemini API reference): the natural end, or the output cap.
const FINISH_REASON = { stop: "STOP", length: "MAX_TOKENS" } as const;

/** The whole response of a reply. */
export function buildGenerateContentResponse(reply: TextReply): Record<string, unknown> {
  return responseOf([{ text: reply.deltas.join("") }], {
    ...fieldsOf(reply),
    finishReason: FINISH_REASON[reply.finish],
    usage: reply.usage,
  });
}

/** The chunks of a reply: one per delta, then one with the finish reason and the usage. */
export function buildGenerateContentEvents(reply: TextReply): SseEvent[] {
  const fields = fieldsOf(reply);
  const events: SseEvent[] = reply.deltas.map((text) => ({
    data: JSON.stringify(responseOf([{ text }], fields)),
  }));
  const last = responseOf([CLOSING_PART], {
    ...fields,
    finishReason: FINISH_REASON[reply.finish],
    usage: reply.usage,
  });
  events.push({ data: JSON.stringify(last) });
  return events;
}

function fieldsOf(reply: TextReply): ResponseFields {
  return { model: reply.model, id: reply.id };
}
