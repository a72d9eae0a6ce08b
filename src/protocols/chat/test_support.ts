/**
 * Test helpers of the chat codec: the recorded transcripts, SSE text parsed as the relay
 * parses it, deterministic encoder contexts, and IR streams folded into whole answers
 * while their grammar (translate/ir.ts `IrEvent`) is checked.
 */
import assert from "node:assert/strict";
import { createParser } from "eventsource-parser";
import fc from "fast-check";
import type { SseEvent } from "../../translate/sse.ts";
import type {
  RequestEncodeContext,
  ResponseEncodeContext,
  StreamDecoder,
} from "../../translate/codec.ts";
import type {
  IrAssistantPart,
  IrEvent,
  IrFinish,
  IrRequest,
  IrStreamError,
  IrStreamPart,
} from "../../translate/ir.ts";
import type { Usage } from "../../usage.ts";

/** The transcript cases every protocol records. */
export const CASES = [
  "text",
  "multi_turn",
  "image",
  "tool_call",
  "parallel_tool_calls",
  "tool_result",
  "reasoning",
  "length",
  "content_filter",
  "cached_usage",
  "error_before_output",
  "error_after_output",
] as const;

/** The recorded transcripts of one protocol (tests/fixtures/transcripts/<protocol>/). */
export function transcripts(protocol: "chat" | "responses" | "messages") {
  const root = new URL(`../../../tests/fixtures/transcripts/${protocol}/`, import.meta.url);
  return {
    /** A JSON file of a recorded transcript. */
    fixtureJson(name: string, file: string): Record<string, unknown> {
      return JSON.parse(Deno.readTextFileSync(new URL(`${name}/${file}`, root)));
    },
    /** Whether a case has the file (error cases have no `response.json`). */
    hasFixture(name: string, file: string): boolean {
      try {
        Deno.statSync(new URL(`${name}/${file}`, root));
        return true;
      } catch {
        return false;
      }
    },
    /** The SSE events of a case's `stream.sse`. */
    fixtureStream(name: string): SseEvent[] {
      return parseSse(Deno.readTextFileSync(new URL(`${name}/stream.sse`, root)));
    },
  };
}

export const { fixtureJson, hasFixture, fixtureStream } = transcripts("chat");

/** The events of SSE text, parsed by the parser the relay uses. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (event) =>
      events.push({ data: event.data, ...(event.event ? { event: event.event } : {}) }),
  });
  parser.feed(text);
  return events;
}

/** Text that JSON must escape: quotes, a backslash, controls, a line separator, a lone surrogate. */
export const ODD = 'say "hi" \\ \n\t\u0001 \u2028 \ud800 é';

/** A streamed part of `part`'s kind, start to end, with one delta of ODD text. */
export function oddPart(index: number, part: IrStreamPart): IrEvent[] {
  const delta: IrEvent = part.type === "tool_call"
    ? { type: "arguments_delta", index, json: `{"a":${JSON.stringify(ODD)}}` }
    : { type: `${part.type}_delta`, index, text: ODD };
  return [{ type: "part_start", index, part }, delta, { type: "part_end", index }];
}

/**
 * Text for the stream readers' property tests: any string, and the pieces a reader
 * without a parse could mistake, with `lookalike` (a field of the reader's own layout).
 */
export function trickyText(lookalike: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string(),
    fc.string({ unit: "binary" }),
    fc.constantFrom("", lookalike, "\\", '"', "\n\u2028", "\ud800", "tok1 "),
  );
}

/**
 * Asserts that a reader without a parse leaves each of `missed` (the data of `event`
 * events) to the parse, and that the decoder still makes of them what a parse makes.
 */
export function assertLeftToParse(
  read: (data: string) => unknown,
  decodeAll: (events: SseEvent[]) => IrEvent[],
  { open, event, missed }: { open: SseEvent[]; event: string; missed: string[] },
): void {
  for (const data of missed) {
    assert.equal(read(data), undefined, data);
    assertSameAsParse(decodeAll, [...open, { event, data }]);
  }
}

/** Named SSE events, as responses and messages servers send them (event name = type). */
export function namedSse(...payloads: Record<string, unknown>[]): SseEvent[] {
  return payloads.map((payload) => ({
    event: String(payload.type),
    data: JSON.stringify(payload),
  }));
}

/** One named SSE event (see namedSse). */
export function namedEvent(payload: Record<string, unknown>): SseEvent {
  return namedSse(payload)[0]!;
}

/**
 * Asserts that `decodeAll` makes the same IR of `events` as of the same events with a
 * space before each one's data, which only a parse accepts: a reader without a parse
 * gives what the parse gives.
 */
export function assertSameAsParse(
  decodeAll: (events: SseEvent[]) => IrEvent[],
  events: SseEvent[],
): void {
  const parsed = events.map((event) => ({ ...event, data: ` ${event.data}` }));
  assert.deepEqual(decodeAll(events), decodeAll(parsed), JSON.stringify(events));
}

/** Every IR event a fresh decoder makes of the events, its end included. */
export function decodeAllWith(decoder: StreamDecoder, events: SseEvent[]): IrEvent[] {
  return [...events.flatMap((event) => decoder.decode(event)), ...decoder.end()];
}

/** A request encoder context that records what was dropped. */
export function requestContext(model = "upstream-model"): RequestEncodeContext & {
  drops: string[];
} {
  const drops: string[] = [];
  return { model, defaultMaxOutputTokens: 4096, drop: (what) => drops.push(what), drops };
}

/** An empty IR request to build cases from. */
export function irRequest(fields: Partial<IrRequest> = {}): IrRequest {
  return {
    model: "m",
    stream: false,
    system: [],
    turns: [],
    tools: [],
    stop: [],
    dropped: [],
    ...fields,
  };
}

/**
 * A response encoder context with counter ids and a fixed clock (2025-08-01T00:00:00Z), for
 * a client that asked for the usage chunk (chat's `stream_options.include_usage`) unless
 * `includeUsage` is false.
 */
export function answerContext(
  fields: Partial<ResponseEncodeContext> & { includeUsage?: boolean } = {},
): ResponseEncodeContext {
  let counter = 0;
  const { includeUsage = true, ...given } = fields;
  return {
    model: "client-model",
    request: irRequest(),
    body: { stream_options: { include_usage: includeUsage } },
    newId: (prefix) => `${prefix}${++counter}`,
    now: () => 1_754_006_400_000,
    requestId: "req_test",
    inputTokensHint: 0,
    ...given,
  };
}

/** A stream folded into a whole answer. */
export interface Folded {
  id?: string;
  model?: string;
  parts: IrAssistantPart[];
  finish?: IrFinish;
  stopSequence?: string;
  usage?: Usage;
  error?: IrStreamError;
}

/** Folds IR events into the answer they stream, asserting the IR stream grammar. */
export function foldEvents(events: IrEvent[]): Folded {
  const folded: Folded = { parts: [] };
  let started = false;
  let open: number | undefined;
  for (const event of events) {
    assert.equal(folded.error, undefined, "nothing may follow an error");
    if (event.type === "error") {
      folded.error = event.error;
      continue;
    }
    if (event.type === "usage") {
      folded.usage = event.usage;
      continue;
    }
    if (event.type === "start") {
      assert.ok(!started, "one start");
      started = true;
      folded.id = event.id;
      folded.model = event.model;
      continue;
    }
    assert.ok(started, `${event.type} before start`);
    if (event.type === "finish") {
      assert.equal(open, undefined, "finish with a part open");
      assert.equal(folded.finish, undefined, "one finish");
      folded.finish = event.reason;
      if (event.stopSequence) folded.stopSequence = event.stopSequence;
      continue;
    }
    assert.equal(folded.finish, undefined, `${event.type} after finish`);
    if (event.type === "part_start") {
      assert.equal(open, undefined, "a part started while another is open");
      assert.equal(event.index, folded.parts.length, "parts are numbered in order from 0");
      open = event.index;
      const part = event.part;
      folded.parts.push(
        part.type === "tool_call"
          ? { type: "tool_call", id: part.id, name: part.name, arguments: "" }
          : part.type === "reasoning"
          ? { type: "reasoning", text: "", ...(part.itemId ? { itemId: part.itemId } : {}) }
          : { type: part.type, text: "" },
      );
      continue;
    }
    assert.equal(event.index, open, `${event.type} for a part that is not open`);
    const part = folded.parts[event.index]!;
    if (event.type === "part_end") open = undefined;
    else if (event.type === "arguments_delta" && part.type === "tool_call") {
      part.arguments += event.json;
    } else if (event.type === "reasoning_opaque" && part.type === "reasoning") {
      part.opaque = event.opaque;
    } else if (
      event.type === "text_delta" || event.type === "refusal_delta" ||
      event.type === "reasoning_delta"
    ) {
      const expected = {
        text_delta: "text",
        refusal_delta: "refusal",
        reasoning_delta: "reasoning",
      };
      assert.equal(part.type, expected[event.type], `${event.type} in a ${part.type} part`);
      if (part.type !== "tool_call") part.text += event.text;
    } else assert.fail(`${event.type} in a ${part.type} part`);
  }
  return folded;
}
