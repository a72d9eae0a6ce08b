/**
 * Test helpers of the messages codec: its recorded transcripts, plus the shared helpers
 * of the chat codec's support (contexts, SSE parsing, IR stream folding).
 */
import type { SseEvent } from "../../translate/sse.ts";
import type { IrEvent } from "../../translate/ir.ts";
import { assertSameAsParse, decodeAllWith, namedSse, transcripts } from "../chat/test_support.ts";
import { createMessagesStreamDecoder } from "./stream_decode.ts";

export {
  answerContext,
  assertLeftToParse,
  CASES,
  foldEvents,
  irRequest,
  namedEvent,
  ODD,
  oddPart,
  parseSse,
  requestContext,
  trickyText,
} from "../chat/test_support.ts";

export const { fixtureJson, hasFixture, fixtureStream } = transcripts("messages");

/** Named SSE events, as a messages server sends them (event name = payload type). */
export const sse = namedSse;

/** Every IR event a fresh decoder makes of the events, its end included. */
export function decodeAll(events: SseEvent[]): IrEvent[] {
  return decodeAllWith(createMessagesStreamDecoder(), events);
}

/** Asserts a fresh decoder makes the same of `events` read without a parse as parsed. */
export function sameAsParse(events: SseEvent[]): void {
  assertSameAsParse(decodeAll, events);
}
