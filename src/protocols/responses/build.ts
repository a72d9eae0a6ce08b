/**
 * Builds responses replies: the `response` object and its event stream (OpenAI
 * `Response`, `ResponseStreamEvent`), one output message with one `output_text` part.
 */
import type { TextReply } from "../types.ts";
import type { SseEvent } from "../../translate/sse.ts";
import { encodeUsage } from "./usage.ts";

// Request parameters the API echoes on the response object, with its defaults.
const ECHOED_DEFAULTS: Record<string, unknown> = {
  background: false,
  instructions: null,
  max_output_tokens: null,
  max_tool_calls: null,
  metadata: {},
  parallel_tool_calls: true,
  previous_response_id: null,
  prompt_cache_key: null,
  reasoning: { effort: null, summary: null },
  safety_identifier: null,
  service_tier: "default",
  store: true,
  temperature: 1,
  text: { format: { type: "text" }, verbosity: "medium" },
  tool_choice: "auto",
  tools: [],
  top_logprobs: 0,
  top_p: 1,
  truncation: "disabled",
  user: null,
};

type Status = "in_progress" | "completed" | "incomplete";

/** The final `response` object of a reply; `request` supplies the echoed parameters. */
export function buildResponse(
  reply: TextReply,
  request: Record<string, unknown> = {},
): Record<string, unknown> {
  const status = reply.finish === "length" ? "incomplete" : "completed";
  const response = responseShell(reply, request, status);
  response.output = [messageItem(reply, status)];
  response.completed_at = status === "completed" ? reply.created : null;
  if (status === "incomplete") response.incomplete_details = { reason: "max_output_tokens" };
  if (reply.usage) response.usage = encodeUsage(reply.usage);
  return response;
}

/**
 * The event stream of a reply, each event numbered by `sequence_number`: created,
 * in_progress, output item and content part added, text deltas, text done, part and item
 * done, then `response.completed` (or `response.incomplete` when cut short).
 */
export function buildResponseEvents(
  reply: TextReply,
  request: Record<string, unknown> = {},
): SseEvent[] {
  const events: SseEvent[] = [];
  const emit = (type: string, fields: Record<string, unknown>) => {
    const body = { type, sequence_number: events.length, ...fields };
    events.push({ event: type, data: JSON.stringify(body) });
  };
  const item = messageItem(reply, "completed");
  const at = { item_id: item.id, output_index: 0 };
  const part = { type: "output_text", annotations: [], logprobs: [], text: "" };
  const text = reply.deltas.join("");
  const opening = responseShell(reply, request, "in_progress");
  emit("response.created", { response: opening });
  emit("response.in_progress", { response: opening });
  emit("response.output_item.added", {
    output_index: 0,
    item: { ...messageItem(reply, "in_progress"), content: [] },
  });
  emit("response.content_part.added", { ...at, content_index: 0, part });
  for (const delta of reply.deltas) {
    emit("response.output_text.delta", { ...at, content_index: 0, delta, logprobs: [] });
  }
  emit("response.output_text.done", { ...at, content_index: 0, text, logprobs: [] });
  emit("response.content_part.done", { ...at, content_index: 0, part: { ...part, text } });
  const final = buildResponse(reply, request);
  emit("response.output_item.done", { output_index: 0, item: (final.output as unknown[])[0] });
  const done = final.status === "completed" ? "response.completed" : "response.incomplete";
  emit(done, { response: final });
  return events;
}

function responseShell(
  reply: TextReply,
  request: Record<string, unknown>,
  status: Status,
): Record<string, unknown> {
  const echoed: Record<string, unknown> = {};
  for (const [key, fallback] of Object.entries(ECHOED_DEFAULTS)) {
    echoed[key] = request[key] ?? fallback;
  }
  return {
    id: reply.id,
    object: "response",
    created_at: reply.created,
    status,
    error: null,
    incomplete_details: null,
    model: reply.model,
    output: [],
    ...echoed,
    usage: null,
  };
}

function messageItem(reply: TextReply, status: Status) {
  return {
    // The output item id shares the response id's random part, as a `msg_` id.
    id: `msg_${reply.id.replace(/^resp_/, "")}`,
    type: "message",
    status,
    role: "assistant",
    content: [
      { type: "output_text", annotations: [], logprobs: [], text: reply.deltas.join("") },
    ],
  };
}
