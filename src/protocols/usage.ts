/**
 * One token vocabulary across protocols. `input_tokens` counts every prompt token, cache
 * reads and writes included (OpenAI's convention); `cached_tokens` are cache reads and
 * `cache_write_tokens` cache writes.
 */
import type { EntryProtocol } from "../config/schema.ts";
import type { SseEvent } from "./sse.ts";
import * as chat from "./chat/usage.ts";
import * as messages from "./messages/usage.ts";
import * as responses from "./responses/usage.ts";

/** Token usage of one request, in tollgate's vocabulary. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
}

/** Watches a stream's events and keeps the usage the upstream reported in them. */
export interface UsageTap {
  /** Looks at one event; never throws, whatever the event holds. */
  observe(event: SseEvent): void;
  /** The usage reported so far, or undefined when the stream reported none. */
  usage(): Usage | undefined;
}

/** How one protocol reports usage, in a full response and in a stream. */
export interface UsageReader {
  usageFromResponse(json: unknown): Usage | undefined;
  createUsageTap(): UsageTap;
}

const READERS: Record<EntryProtocol, UsageReader> = { chat, responses, messages };

/** The usage reader of a protocol. */
export function usageFor(protocol: EntryProtocol): UsageReader {
  return READERS[protocol];
}
