/**
 * Responses as OpenAI sends them (API reference: "The response object" and "Streaming
 * events"): every event typed and numbered by `sequence_number`, `obfuscation` on
 * deltas, reasoning items with a summary and `encrypted_content`.
 */
import { argumentPieces } from "./chat_wire.ts";
import {
  type FakeReply,
  finishOf,
  frame,
  frameList,
  pieces,
  providerId,
  type WireContext,
  type WireFrame,
} from "./reply.ts";

type Item = Record<string, unknown>;

/** The output items of a reply, in order: reasoning, message, function calls. */
function outputItems(reply: FakeReply): Item[] {
  const items: Item[] = [];
  if (reply.reasoning) {
    items.push({
      id: providerId("rs_"),
      type: "reasoning",
      summary: [{ type: "summary_text", text: reply.reasoning.text }],
      ...(reply.reasoning.opaque ? { encrypted_content: reply.reasoning.opaque } : {}),
    });
  }
  if (reply.text || !reply.toolCalls?.length) {
    items.push({
      id: providerId("msg_"),
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: reply.text, annotations: [], logprobs: [] }],
    });
  }
  for (const call of reply.toolCalls ?? []) {
    items.push({
      id: providerId("fc_"),
      type: "function_call",
      status: "completed",
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    });
  }
  return items;
}

/** The response object, `output` and status as given. */
function responseObject(context: WireContext, output: Item[], reply?: FakeReply): Item {
  const finish = reply ? finishOf(reply) : undefined;
  const incomplete = finish === "length" || finish === "content_filter";
  const request = context.request;
  return {
    id: context.id,
    object: "response",
    created_at: context.created,
    status: !reply ? "in_progress" : incomplete ? "incomplete" : "completed",
    background: false,
    error: null,
    incomplete_details: incomplete
      ? { reason: finish === "length" ? "max_output_tokens" : "content_filter" }
      : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: context.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: "default",
    store: false,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: request.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: reply && context.usage ? responsesUsage(context) : null,
    user: null,
    metadata: {},
  };
}

/** The whole response. */
export function responsesBody(reply: FakeReply, context: WireContext): Item {
  return responseObject(context, outputItems(reply), reply);
}

/** The SSE frames of a responses stream. */
export function responsesFrames(reply: FakeReply, context: WireContext): string[] {
  return responsesStream(reply, context).map((frame) => frame.text);
}

/** The frames of a responses stream, classified (`response.completed` is the closing). */
export function responsesStream(reply: FakeReply, context: WireContext): WireFrame[] {
  let sequence = 0;
  const list = frameList();
  const emit = (type: string, fields: Item, kind?: "content" | "closing") =>
    list.add(frame({ type, sequence_number: sequence++, ...fields }, type), kind);
  const delta = (type: string, fields: Item) =>
    emit(type, { ...fields, obfuscation: "xyz" }, "content");

  emit("response.created", { response: responseObject(context, []) });
  emit("response.in_progress", { response: responseObject(context, []) });
  const items = outputItems(reply);
  items.forEach((item, output_index) => {
    const item_id = item.id;
    const where = { item_id, output_index };
    if (item.type === "reasoning") {
      const text = reply.reasoning?.text ?? "";
      emit("response.output_item.added", { output_index, item: { ...item, summary: [] } });
      const part = { type: "summary_text", text: "" };
      emit("response.reasoning_summary_part.added", { ...where, summary_index: 0, part });
      for (const piece of pieces(text)) {
        delta("response.reasoning_summary_text.delta", {
          ...where,
          summary_index: 0,
          delta: piece,
        });
      }
      emit("response.reasoning_summary_text.done", { ...where, summary_index: 0, text });
      emit("response.reasoning_summary_part.done", {
        ...where,
        summary_index: 0,
        part: { type: "summary_text", text },
      });
    } else if (item.type === "message") {
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      const empty = { type: "output_text", text: "", annotations: [], logprobs: [] };
      emit("response.content_part.added", { ...where, content_index: 0, part: empty });
      for (const piece of pieces(reply.text)) {
        delta("response.output_text.delta", {
          ...where,
          content_index: 0,
          delta: piece,
          logprobs: [],
        });
      }
      emit("response.output_text.done", {
        ...where,
        content_index: 0,
        text: reply.text,
        logprobs: [],
      });
      emit("response.content_part.done", {
        ...where,
        content_index: 0,
        part: { ...empty, text: reply.text },
      });
    } else {
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      }, "content");
      for (const piece of argumentPieces(String(item.arguments))) {
        delta("response.function_call_arguments.delta", { ...where, delta: piece });
      }
      emit("response.function_call_arguments.done", { ...where, arguments: item.arguments });
    }
    emit("response.output_item.done", { output_index, item });
  });
  const final = responseObject(context, items, reply);
  emit(final.status === "incomplete" ? "response.incomplete" : "response.completed", {
    response: final,
  }, "closing");
  return list.frames;
}

/** An `error` event in a responses stream, numbered after `sequence` events. */
export function responsesErrorFrame(message: string, sequence: number, code = "server_error") {
  const data = { type: "error", sequence_number: sequence, code, message, param: null };
  return frame(data, "error");
}

/** A `response.failed` event: the response with status `failed` and its `error`. */
export function responsesFailedFrame(
  context: WireContext,
  message: string,
  sequence: number,
  code = "server_error",
): string {
  const response = { ...responseObject(context, []), status: "failed", error: { code, message } };
  return frame({ type: "response.failed", sequence_number: sequence, response }, "response.failed");
}

function responsesUsage({ usage }: WireContext) {
  if (!usage) return null;
  return {
    input_tokens: usage.input,
    input_tokens_details: {
      cached_tokens: usage.cached,
      ...(usage.cacheWrite ? { cache_write_tokens: usage.cacheWrite } : {}),
    },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: usage.input + usage.output,
  };
}
