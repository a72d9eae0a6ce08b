/** Errors inside a chat-completions stream: chunks that carry `error` (they are not named events). */
import { type GatewayError, OPENAI_SHAPE } from "../../errors.ts";
import { statusOfErrorType } from "../error_status.ts";
import { asRecord, parseEventData, stringOr } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { StreamErrorReport } from "../../translate/codec.ts";

/** The OpenAI SDKs raise an APIError for a chunk that carries `error`: the error body itself. */
export function streamErrorEvents(error: GatewayError, requestId: string): SseEvent[] {
  return [{ data: JSON.stringify(OPENAI_SHAPE.body(error, requestId)) }];
}

/** The error a chunk reports, if it is an error chunk. */
export function streamError(event: SseEvent): StreamErrorReport | undefined {
  if (!event.data.includes('"error"')) return undefined;
  const error = asRecord(parseEventData(event.data)?.error);
  if (!error) return undefined;
  const type = stringOr(error.type) || stringOr(error.code) || undefined;
  return { status: statusOfErrorType(type), type, message: stringOr(error.message) || undefined };
}
