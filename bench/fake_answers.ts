/**
 * The fake upstream's fixed answers in each protocol: a whole answer with usage and an
 * SSE stream of N content chunks (`tok0 `, `tok1 `, …) in the protocol's own grammar,
 * one Uint8Array per event. Shapes follow the recorded transcripts of
 * tests/fixtures/transcripts/<protocol>/text (OpenAI "Chat Completions" and "Responses
 * streaming events", Anthropic "Streaming Messages").
 */
import { entryPath, type Protocol } from "./protocols.ts";

/** One protocol's precomputed answers. */
export interface FakeAnswers {
  /** The non-stream JSON body. */
  whole: string;
  /** The stream's events, one write each. */
  events: Uint8Array[];
  /**
   * Chat only: the stream's events for a request without `stream_options.include_usage`
   * (no `usage` field and no usage chunk); `events` are those of a request with it.
   */
  withoutUsage?: Uint8Array[];
}

const CREATED = 1_700_000_000;
const INPUT_TOKENS = 12;
/** The text of every whole answer. */
export const WHOLE_TEXT = "Hello from the bench upstream.";
const WHOLE_TOKENS = 8;
const encoder = new TextEncoder();
const token = (i: number) => `tok${i} `;
const dataEvent = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);
/** A named event (`event:` line), as responses and messages streams send them. */
const namedEvent = (type: string, data: Record<string, unknown>) =>
  encoder.encode(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);

/**
 * Chat completions: N chunks (the last with `finish_reason`), a usage chunk and `[DONE]`.
 * As the API does once the request asks for `stream_options.include_usage` (tollgate
 * always does), every chunk but the usage one carries `"usage":null`; without it
 * (`withoutUsage`), no chunk has a `usage` field and there is no usage chunk.
 */
export function chatAnswers(chunks: number): FakeAnswers {
  const id = "chatcmpl-bench";
  const chunk = (choices: unknown[], usage: unknown) =>
    dataEvent({
      id,
      object: "chat.completion.chunk",
      created: CREATED,
      model: "bench",
      choices,
      ...(usage === undefined ? {} : { usage }),
    });
  const stream = (includeUsage: boolean) => {
    const events: Uint8Array[] = [];
    for (let i = 0; i < chunks; i++) {
      const delta = i === 0 ? { role: "assistant", content: token(i) } : { content: token(i) };
      const finish = i === chunks - 1 ? "stop" : null;
      events.push(
        chunk([{ index: 0, delta, finish_reason: finish }], includeUsage ? null : undefined),
      );
    }
    if (includeUsage) events.push(chunk([], chatUsage(chunks)));
    events.push(encoder.encode("data: [DONE]\n\n"));
    return events;
  };
  const whole = JSON.stringify({
    id,
    object: "chat.completion",
    created: CREATED,
    model: "bench",
    choices: [{
      index: 0,
      message: { role: "assistant", content: WHOLE_TEXT },
      finish_reason: "stop",
    }],
    usage: chatUsage(WHOLE_TOKENS),
  });
  return { whole, events: stream(true), withoutUsage: stream(false) };
}

function chatUsage(output: number) {
  return {
    prompt_tokens: INPUT_TOKENS,
    completion_tokens: output,
    total_tokens: INPUT_TOKENS + output,
  };
}

/**
 * Responses: created, in_progress, output_item.added, content_part.added, N
 * output_text.delta, the three `.done` events and response.completed with usage.
 */
export function responsesAnswers(chunks: number): FakeAnswers {
  const itemId = "msg_bench";
  const response = (status: string, text: string | undefined, output: number) => ({
    id: "resp_bench",
    object: "response",
    created_at: CREATED,
    status,
    error: null,
    incomplete_details: null,
    model: "bench",
    output: text === undefined ? [] : [messageItem(itemId, "completed", text)],
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: text === undefined ? null : {
      input_tokens: INPUT_TOKENS,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: INPUT_TOKENS + output,
    },
  });
  const text = Array.from({ length: chunks }, (_, i) => token(i)).join("");
  const part = (partText: string) => ({ type: "output_text", text: partText, annotations: [] });
  const at = { item_id: itemId, output_index: 0, content_index: 0 };
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) =>
    namedEvent(type, { sequence_number: sequence++, ...data });
  const events = [
    event("response.created", { response: response("in_progress", undefined, 0) }),
    event("response.in_progress", { response: response("in_progress", undefined, 0) }),
    event("response.output_item.added", {
      output_index: 0,
      item: messageItem(itemId, "in_progress", undefined),
    }),
    event("response.content_part.added", { ...at, part: part("") }),
  ];
  for (let i = 0; i < chunks; i++) {
    events.push(event("response.output_text.delta", { ...at, delta: token(i), logprobs: [] }));
  }
  events.push(
    event("response.output_text.done", { ...at, text, logprobs: [] }),
    event("response.content_part.done", { ...at, part: part(text) }),
    event("response.output_item.done", {
      output_index: 0,
      item: messageItem(itemId, "completed", text),
    }),
    event("response.completed", { response: response("completed", text, chunks) }),
  );
  return { whole: JSON.stringify(response("completed", WHOLE_TEXT, WHOLE_TOKENS)), events };
}

function messageItem(id: string, status: string, text: string | undefined) {
  return {
    id,
    type: "message",
    status,
    role: "assistant",
    content: text === undefined ? [] : [{ type: "output_text", text, annotations: [] }],
  };
}

/**
 * Messages: message_start (with input usage), content_block_start, N text_delta
 * content_block_delta, content_block_stop, message_delta (output usage), message_stop.
 */
export function messagesAnswers(chunks: number): FakeAnswers {
  const message = (content: unknown[], stopReason: string | null, output: number) => ({
    id: "msg_bench",
    type: "message",
    role: "assistant",
    model: "bench",
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: INPUT_TOKENS,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: output,
    },
  });
  const events = [
    namedEvent("message_start", { message: message([], null, 1) }),
    namedEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
  ];
  for (let i = 0; i < chunks; i++) {
    events.push(namedEvent("content_block_delta", {
      index: 0,
      delta: { type: "text_delta", text: token(i) },
    }));
  }
  events.push(
    namedEvent("content_block_stop", { index: 0 }),
    namedEvent("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: chunks },
    }),
    namedEvent("message_stop", {}),
  );
  const whole = message([{ type: "text", text: WHOLE_TEXT }], "end_turn", WHOLE_TOKENS);
  return { whole: JSON.stringify(whole), events };
}

/** Each protocol's answers, by the upstream path that serves them. */
export function answersByPath(chunks: number): Record<string, FakeAnswers> {
  const byProtocol: Record<Protocol, FakeAnswers> = {
    chat: chatAnswers(chunks),
    responses: responsesAnswers(chunks),
    messages: messagesAnswers(chunks),
  };
  return Object.fromEntries(
    Object.entries(byProtocol).map(([protocol, answers]) => [
      entryPath(protocol as Protocol),
      answers,
    ]),
  );
}
