/**
 * Builds chat-completions replies: the `chat.completion` object and the
 * `chat.completion.chunk` stream (OpenAI `ChatCompletion`, `ChatCompletionChunk`).
 */
import type { TextReply } from "../types.ts";
import type { SseEvent } from "../../translate/sse.ts";
import { encodeUsage } from "./usage.ts";

/** Options of the chunk stream. */
export interface ChatStreamOptions {
  /** The client's `stream_options.include_usage`: a final usage chunk with no choices. */
  includeUsage: boolean;
}

/** The `chat.completion` object of a reply. */
export function buildChatCompletion(reply: TextReply): Record<string, unknown> {
  const completion: Record<string, unknown> = {
    id: reply.id,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: reply.deltas.join(""),
        refusal: null,
        annotations: [],
      },
      logprobs: null,
      finish_reason: reply.finish,
    }],
    service_tier: "default",
  };
  if (reply.usage) completion.usage = encodeUsage(reply.usage);
  return completion;
}

/**
 * The chunk stream of a reply: a role chunk, one chunk per delta, a finish chunk, the
 * usage chunk when asked for, then `[DONE]`.
 */
export function buildChatEvents(reply: TextReply, options: ChatStreamOptions): SseEvent[] {
  const chunk = (choices: unknown[], usage?: unknown): SseEvent => {
    const body: Record<string, unknown> = {
      id: reply.id,
      object: "chat.completion.chunk",
      created: reply.created,
      model: reply.model,
      service_tier: "default",
      choices,
    };
    // With include_usage, OpenAI sends `usage: null` on every chunk before the last.
    if (options.includeUsage) body.usage = usage ?? null;
    return { data: JSON.stringify(body) };
  };
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  });
  const events = [chunk([choice({ role: "assistant", content: "", refusal: null })])];
  for (const text of reply.deltas) events.push(chunk([choice({ content: text })]));
  events.push(chunk([choice({}, reply.finish)]));
  if (options.includeUsage && reply.usage) events.push(chunk([], encodeUsage(reply.usage)));
  events.push({ data: "[DONE]" });
  return events;
}
