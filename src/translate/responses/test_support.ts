/**
 * Test helpers of the responses codec: its recorded transcripts, named SSE events, whole
 * decodes and encodes of a stream, plus the shared helpers of the chat codec's support
 * (contexts, SSE parsing, IR stream folding).
 */
import type { SseEvent } from "../../protocols/sse.ts";
import type { ResponseEncodeContext } from "../codec.ts";
import type { IrEvent } from "../ir.ts";
import { answerContext, parseSse } from "../chat/test_support.ts";
import { createResponsesStreamDecoder } from "./stream_decode.ts";
import { createResponsesStreamEncoder } from "./stream_encode.ts";

export {
  answerContext,
  CASES,
  foldEvents,
  irRequest,
  parseSse,
  requestContext,
} from "../chat/test_support.ts";

const FIXTURES = new URL("../../../tests/fixtures/transcripts/responses/", import.meta.url);

/** A JSON file of a recorded responses transcript. */
export function fixtureJson(name: string, file: string): Record<string, unknown> {
  return JSON.parse(Deno.readTextFileSync(new URL(`${name}/${file}`, FIXTURES)));
}

/** Whether a case has the file (error cases have no `response.json`). */
export function hasFixture(name: string, file: string): boolean {
  try {
    Deno.statSync(new URL(`${name}/${file}`, FIXTURES));
    return true;
  } catch {
    return false;
  }
}

/** The SSE events of a case's `stream.sse`. */
export function fixtureStream(name: string): SseEvent[] {
  return parseSse(Deno.readTextFileSync(new URL(`${name}/stream.sse`, FIXTURES)));
}

/** Named SSE events, as a responses server sends them (event name = payload type). */
export function sse(...payloads: Record<string, unknown>[]): SseEvent[] {
  return payloads.map((payload) => ({
    event: String(payload.type),
    data: JSON.stringify(payload),
  }));
}

/** Every IR event a fresh decoder makes of the events, its end included. */
export function decodeAll(events: SseEvent[]): IrEvent[] {
  const decoder = createResponsesStreamDecoder();
  return [...events.flatMap((event) => decoder.decode(event)), ...decoder.end()];
}

/** Every client event a fresh encoder makes of the IR events, its end included. */
export function encodeAll(
  events: IrEvent[],
  context: ResponseEncodeContext = answerContext(),
): SseEvent[] {
  const encoder = createResponsesStreamEncoder(context);
  return [...events.flatMap((event) => encoder.encode(event)), ...encoder.end()];
}

/** The JSON payloads of encoded events. */
export function payloads(events: SseEvent[]): Record<string, unknown>[] {
  return events.map((event) => JSON.parse(event.data));
}
