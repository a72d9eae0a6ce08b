/**
 * Chat completions as OpenAI sends them (API reference: "The chat completion object" and
 * "The chat completion chunk object"), with the details real providers add: a
 * `system_fingerprint`, `obfuscation` on every chunk, `"usage": null` on every chunk once
 * `stream_options.include_usage` is set, and DeepSeek-style `reasoning_content`.
 */
import {
  type FakeReply,
  finishOf,
  frame,
  frameList,
  pieces,
  type WireContext,
  type WireFrame,
} from "./reply.ts";

/** The whole chat completion. */
export function chatBody(reply: FakeReply, context: WireContext): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: reply.toolCalls?.length && !reply.text ? null : reply.text,
    refusal: null,
    annotations: [],
  };
  if (reply.reasoning) message.reasoning_content = reply.reasoning.text;
  if (reply.toolCalls?.length) {
    message.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: context.id,
    object: "chat.completion",
    created: context.created,
    model: context.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(reply) }],
    usage: context.usage ? chatUsage(context) : undefined,
    service_tier: "default",
    system_fingerprint: "fp_fake",
  };
}

/** The SSE frames of a chat completion stream, `[DONE]` included. */
export function chatFrames(reply: FakeReply, context: WireContext): string[] {
  return chatStream(reply, context).map((frame) => frame.text);
}

/** The frames of a chat completion stream, classified (the role-only chunk is the preamble). */
export function chatStream(reply: FakeReply, context: WireContext): WireFrame[] {
  const options = context.request.stream_options as { include_usage?: unknown } | undefined;
  const includeUsage = options?.include_usage === true;
  let obfuscation = 0;
  const chunk = (choices: unknown[], usage: unknown = null) =>
    frame({
      id: context.id,
      object: "chat.completion.chunk",
      created: context.created,
      model: context.model,
      service_tier: "default",
      system_fingerprint: "fp_fake",
      choices,
      ...(includeUsage ? { usage } : {}),
      obfuscation: "x".repeat(++obfuscation % 7),
    });
  const delta = (delta: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta, logprobs: null, finish_reason: finish }]);

  const list = frameList();
  list.add(delta({ role: "assistant", content: "", refusal: null }));
  for (const piece of pieces(reply.reasoning?.text ?? "")) {
    list.add(delta({ reasoning_content: piece }), "content");
  }
  for (const piece of pieces(reply.text)) list.add(delta({ content: piece }), "content");
  (reply.toolCalls ?? []).forEach((call, index) => {
    list.add(
      delta({
        tool_calls: [{
          index,
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: "" },
        }],
      }),
      "content",
    );
    for (const piece of argumentPieces(call.arguments)) {
      list.add(delta({ tool_calls: [{ index, function: { arguments: piece } }] }), "content");
    }
  });
  list.add(delta({}, finishOf(reply)), "closing");
  if (includeUsage && context.usage) list.add(chunk([], chatUsage(context)), "closing");
  list.add(frame("[DONE]"), "closing");
  return list.frames;
}

/** An error event in a chat stream: OpenAI sends a bare `error` object as data, then ends. */
export function chatErrorFrame(message: string, type = "server_error"): string {
  return frame({ error: { message, type, param: null, code: null } });
}

/** Argument JSON in a few pieces, as models stream it. */
export function argumentPieces(json: string): string[] {
  const size = Math.max(1, Math.ceil(json.length / 3));
  const out: string[] = [];
  for (let i = 0; i < json.length; i += size) out.push(json.slice(i, i + size));
  return out;
}

function chatUsage({ usage }: WireContext) {
  if (!usage) return null;
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: {
      cached_tokens: usage.cached,
      audio_tokens: 0,
      ...(usage.cacheWrite ? { cache_write_tokens: usage.cacheWrite } : {}),
    },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}
