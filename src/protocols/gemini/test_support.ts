/**
 * Test helpers of the Gemini protocol: its transcripts (tests/fixtures/gemini/, written
 * from the API reference's examples and Gemini CLI's request as clients.md records it),
 * SSE chunks as Google writes them, plus the shared helpers of the chat codec's support
 * (contexts, SSE parsing, IR stream folding).
 */
import type { IrEvent } from "../../translate/ir.ts";
import { decodeAllWith, parseSse } from "../chat/test_support.ts";
import type { SseEvent } from "../../translate/sse.ts";
import { createGeminiStreamDecoder } from "./stream_decode.ts";

export {
  answerContext,
  foldEvents,
  irRequest,
  ODD,
  oddPart,
  parseSse,
  requestContext,
} from "../chat/test_support.ts";

const ROOT = new URL("../../../tests/fixtures/gemini/", import.meta.url);

/** A JSON transcript file. */
export function fixtureJson(name: string): Record<string, unknown> {
  return JSON.parse(Deno.readTextFileSync(new URL(name, ROOT)));
}

/** The events of an SSE transcript file. */
export function fixtureStream(name: string): SseEvent[] {
  return parseSse(Deno.readTextFileSync(new URL(name, ROOT)));
}

/** Gemini CLI's request (clients.md): a fresh copy each call, for tests that change it. */
export function geminiCliRequest(): Record<string, unknown> {
  return fixtureJson("gemini_cli_request.json");
}

/** Stream chunks as Google sends them: `data:` lines, no event names. */
export function sse(...chunks: Record<string, unknown>[]): SseEvent[] {
  return chunks.map((chunk) => ({ data: JSON.stringify(chunk) }));
}

/** A chunk of one candidate with `parts`, as a Gemini upstream streams it. */
export function chunkOf(
  parts: Record<string, unknown>[],
  fields: { finishReason?: string; usageMetadata?: Record<string, unknown> } = {},
): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts, role: "model" }, index: 0 };
  if (fields.finishReason) candidate.finishReason = fields.finishReason;
  return {
    candidates: [candidate],
    ...(fields.usageMetadata ? { usageMetadata: fields.usageMetadata } : {}),
    modelVersion: "gemini-2.5-flash",
    responseId: "resp-1",
  };
}

/** Every IR event a fresh decoder makes of the events, its end included. */
export function decodeAll(events: SseEvent[]): IrEvent[] {
  return decodeAllWith(createGeminiStreamDecoder(), events);
}

/**
 * A chunk or whole response as tollgate writes it, in the terms of `@google/genai`'s
 * `GenerateContentResponse`, `Candidate`, `Content`, `Part` and `UsageMetadata`.
 */
export interface GeminiChunk {
  /** One candidate, whose content has at least one part (what the SDK's chat takes as valid). */
  candidates: [{
    content: { parts: [Record<string, unknown>, ...Record<string, unknown>[]]; role: string };
    finishReason?: string;
    index: number;
  }];
  usageMetadata?: Record<string, number>;
  modelVersion: string;
  responseId: string;
}

/** The JSON of each event's data (a Gemini client stream is nothing but JSON lines). */
export function chunksOf(events: SseEvent[]): GeminiChunk[] {
  return events.map((event) => JSON.parse(event.data));
}
