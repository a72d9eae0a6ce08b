/**
 * Test helpers of the responses codec: its recorded transcripts, named SSE events, whole
 * decodes and encodes of a stream, a check of the client stream grammar strict clients
 * parse (the openai SDK's `ResponseStream`, Codex CLI), plus the shared helpers of the
 * chat codec's support (contexts, SSE parsing, IR stream folding).
 */
import assert from "node:assert/strict";
import type { SseEvent } from "../../translate/sse.ts";
import type { ResponseEncodeContext } from "../../translate/codec.ts";
import type { IrEvent } from "../../translate/ir.ts";
import {
  answerContext,
  assertSameAsParse,
  decodeAllWith,
  namedSse,
  transcripts,
} from "../chat/test_support.ts";
import { createResponsesStreamDecoder } from "./stream_decode.ts";
import { createResponsesStreamEncoder } from "./stream_encode.ts";

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

export const { fixtureJson, hasFixture, fixtureStream } = transcripts("responses");

/** Named SSE events, as a responses server sends them (event name = payload type). */
export const sse = namedSse;

/** Every IR event a fresh decoder makes of the events, its end included. */
export function decodeAll(events: SseEvent[]): IrEvent[] {
  return decodeAllWith(createResponsesStreamDecoder(), events);
}

/** Asserts a fresh decoder makes the same of `events` read without a parse as parsed. */
export function sameAsParse(events: SseEvent[]): void {
  assertSameAsParse(decodeAll, events);
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

type Payload = Record<string, unknown> & { type: string; sequence_number: number };
type Item = Record<string, unknown>;

/** The final `response` of a stream, after checking every event's place in the grammar. */
export function checkGrammar(events: SseEvent[]): Item {
  const payloads: Payload[] = events.map((event) => JSON.parse(event.data));
  payloads.forEach((payload, i) => {
    assert.equal(event(events, i), payload.type, "the event name is the payload's type");
    assert.equal(payload.sequence_number, i, "sequence numbers count from 0");
  });
  assert.deepEqual(payloads.slice(0, 2).map((p) => p.type), [
    "response.created",
    "response.in_progress",
  ]);
  const id = (payloads[0]!.response as Item).id;
  const last = payloads.at(-1)!;
  assert.match(last.type, /^response\.(completed|incomplete)$/);
  const final = last.response as Item;
  assert.equal(final.id, id, "one response id");
  assert.equal(final.status, last.type.slice("response.".length));
  const done: Item[] = [];
  let open: Item | undefined;
  const texts = new Map<string, string>();
  for (const payload of payloads.slice(2, -1)) {
    const { type } = payload;
    if (type === "response.output_item.added") {
      assert.equal(open, undefined, "one item at a time");
      assert.equal(payload.output_index, done.length, "items numbered in order");
      open = payload.item as Item;
      assert.equal(open.status ?? "in_progress", "in_progress");
      continue;
    }
    assert.ok(open, `${type} outside an item`);
    assert.equal(payload.output_index, done.length, `${type} for the open item`);
    if (type === "response.output_item.done") {
      const item = payload.item as Item;
      assert.equal(item.id, open.id);
      assert.equal(item.type, open.type);
      checkItemText(item, texts);
      done.push(item);
      open = undefined;
      texts.clear();
      continue;
    }
    assert.equal(payload.item_id, open.id, `${type} names the open item`);
    const key = `${payload.content_index ?? payload.summary_index ?? ""}`;
    if (type.endsWith(".delta")) texts.set(key, (texts.get(key) ?? "") + payload.delta);
    else if (/\.(output_text|refusal|reasoning_summary_text)\.done$/.test(type)) {
      assert.equal(payload.text ?? payload.refusal, texts.get(key) ?? "", `${type} restates`);
    } else if (type === "response.function_call_arguments.done") {
      assert.equal(payload.arguments, texts.get(key) ?? "");
    } else if (type === "response.custom_tool_call_input.done") {
      assert.equal(payload.input, texts.get(key) ?? "");
    }
  }
  assert.equal(open, undefined, "every item done before the end");
  assert.deepEqual(final.output, done, "the final response holds every item");
  return final;
}

function event(events: SseEvent[], i: number): string | undefined {
  return events[i]!.event;
}

/** An item's content agrees with what its deltas said. */
function checkItemText(item: Item, texts: Map<string, string>): void {
  if (item.type === "message") {
    (item.content as Item[]).forEach((part, i) => {
      assert.equal(part.text ?? part.refusal, texts.get(`${i}`) ?? "");
    });
  } else if (item.type === "function_call") assert.equal(item.arguments, texts.get("") ?? "");
  else if (item.type === "custom_tool_call") assert.equal(item.input, texts.get("") ?? "");
  else if (item.type === "reasoning") {
    const summary = item.summary as Item[];
    summary.forEach((part, i) => assert.equal(part.text, texts.get(`${i}`) ?? ""));
  }
}
