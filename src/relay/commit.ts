/**
 * Reading an attempt up to the point where its answer is committed to the client
 * (design.md "Failover"): a whole answer once its body is read; a stream at its first
 * content (a text, reasoning or tool-call delta) or its proper end, with the entry
 * protocol's preamble held back until then. Anything that goes wrong before that point
 * is an UpstreamFailure, and failover may still try elsewhere: the client saw nothing.
 */
import type { Timeouts } from "../config/schema.ts";
import type { Protocol } from "../protocols/index.ts";
import { encodeSse, type SseEvent } from "../translate/sse.ts";
import type { StreamConverter } from "../translate/translation.ts";
import { type UpstreamExchange, UpstreamFailure } from "../upstream/call.ts";
import type { UpstreamResponse } from "../upstream/response.ts";
import { readSseBatches } from "../upstream/sse.ts";
import { type SseBatch } from "../upstream/sse.ts";
import type { WholeAnswer } from "../translate/translation.ts";

const DECODER = new TextDecoder();
const ENCODER = new TextEncoder();

/** A whole answer's body and its JSON. */
export async function readWhole(
  exchange: UpstreamExchange,
  response: UpstreamResponse,
  timeouts: Timeouts,
): Promise<WholeAnswer> {
  const bytes = await exchange.within(response.bytes(), timeouts.idle, "response body");
  const text = DECODER.decode(bytes);
  try {
    return { bytes, text, json: JSON.parse(text) };
  } catch (cause) {
    throw new UpstreamFailure("network", "The upstream answered with a body that is not JSON.", {
      cause,
    });
  }
}

/** A stream read up to its commit point. */
export interface CommittedStream {
  /** The upstream's event batches still to come (none when `ended`). */
  events: AsyncIterator<SseBatch>;
  /** The client's bytes held back until commit: the preamble and the first content. */
  held: Uint8Array[];
  /** The converter the stream goes on through. */
  converter: StreamConverter;
  /** The upstream's body ended, properly, before or with its commit (an answer without content). */
  ended: boolean;
}

/** What reading a stream to its commit point needs. */
export interface StreamCommit {
  exchange: UpstreamExchange;
  response: UpstreamResponse;
  /** The protocol the upstream answers in. */
  upstream: Protocol;
  converter: StreamConverter;
  timeouts: Timeouts;
  /** How long the first content may take, from now. */
  firstContentMs: number;
  /** Redacts the config's secrets from an upstream's error event. */
  redact?: (text: string) => string;
}

/**
 * Reads the stream until its first content or its proper end; throws UpstreamFailure for
 * an error event, a malformed event, a stream that ended without its terminal event, or a
 * deadline passed (first byte, idle, first content).
 */
export async function readToCommit(commit: StreamCommit): Promise<CommittedStream> {
  const { exchange, response, converter, timeouts } = commit;
  if (!response.body || !response.header("content-type")?.includes("text/event-stream")) {
    throw new UpstreamFailure("network", "The upstream did not answer with an event stream.");
  }
  const wire = commit.upstream;
  // No signal: an aborted exchange already ends the body's reads (its connection closes,
  // the echo's stream errors), and a listener per stream would stay for all of it.
  const events = readSseBatches(response.body)[Symbol.asyncIterator]();
  const contentDeadline = exchange.deadline(commit.firstContentMs, "content");
  const held: Uint8Array[] = [];
  let ended = false;
  try {
    let batch = await exchange.within(firstEvents(events), timeouts.first_byte, "stream event");
    for (;;) {
      if (batch.done) {
        throw new UpstreamFailure("network", "The upstream stream ended before its answer did.");
      }
      const { events: upstreamEvents } = batch.value;
      let content = false;
      for (const event of upstreamEvents) {
        failIfBroken(event, commit.upstream, commit.redact);
        content ||= wire.streamContent(event);
        ended ||= wire.streamEnded(event);
      }
      const out = converter.events(upstreamEvents);
      const last = batch.value.last === true;
      if (last && !ended) {
        throw new UpstreamFailure("network", "The upstream stream ended before its answer did.");
      }
      const closing = last ? converter.end() : [];
      const bytes = out === upstreamEvents && batch.value.bytes && closing.length === 0
        ? batch.value.bytes
        : encode([...out, ...closing]);
      if (bytes) held.push(bytes);
      if (content || ended) return { events, held, converter, ended: last };
      exchange.idle.start();
      try {
        batch = await events.next();
      } finally {
        exchange.idle.end();
      }
    }
  } catch (error) {
    void events.return?.(undefined);
    throw error;
  } finally {
    contentDeadline.end();
  }
}

/** An error event, or an event whose data is not JSON, as the failure it is. */
function failIfBroken(
  event: SseEvent,
  upstream: Protocol,
  redact: (text: string) => string = (text) => text,
): void {
  const found = upstream.streamError(event);
  if (found) {
    const report = found.message === undefined
      ? found
      : { ...found, message: redact(found.message) };
    const what = report.message ? `: ${report.message}` : ".";
    throw new UpstreamFailure(
      "status",
      `The upstream's stream reported an error before its answer${what}`,
      {
        status: report.status,
        upstreamMessage: report.message,
        upstreamCode: report.type,
      },
    );
  }
  if (isMalformed(event)) {
    throw new UpstreamFailure("network", "The upstream sent a stream event that is not JSON.");
  }
}

/**
 * Whether an event's data was cut short: every protocol sends one JSON object an event
 * (chat's `[DONE]` aside), and a cut one does not end it. Read off its ends, not parsed:
 * every event of every stream is asked.
 */
export function isMalformed(event: SseEvent): boolean {
  const data = event.data.trim();
  return data !== "[DONE]" && !(data.startsWith("{") && data.endsWith("}"));
}

/** The first batch that holds events: comments before them do not make a first byte. */
async function firstEvents(events: AsyncIterator<SseBatch>): Promise<IteratorResult<SseBatch>> {
  for (;;) {
    const step = await events.next();
    if (step.done || step.value.events.length > 0) return step;
  }
}

function encode(events: SseEvent[]): Uint8Array | undefined {
  if (events.length === 0) return undefined;
  let text = "";
  for (const event of events) text += encodeSse(event);
  return ENCODER.encode(text);
}
