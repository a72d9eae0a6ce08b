/**
 * An IR answer as a responses client's `response` (OpenAI `Response`): output items in
 * order (text and refusals in a row share one message item; reasoning items with the
 * opaque state in `encrypted_content`; a call of a tool the client declared `custom` as a
 * `custom_tool_call`), the client's parameters echoed as the API does, status and usage.
 */
import { encodeUsage } from "./usage.ts";
import { customToolNames } from "../chat/response_encode.ts";
import type { ResponseEncodeContext } from "../../translate/codec.ts";
import type { IrAssistantPart, IrFinish, IrResponse } from "../../translate/ir.ts";
import { outcomeOf } from "./finish.ts";
import { callItem, contentPart, itemIdOf, messageItem, reasoningItem } from "./items.ts";
import type { Usage } from "../../usage.ts";

type Item = Record<string, unknown>;

/** The client's `response` body for an answer. */
export function encodeResponsesResponse(
  response: IrResponse,
  context: ResponseEncodeContext,
): Record<string, unknown> {
  const id = context.newId("resp_");
  const created = response.created ?? Math.floor(context.now() / 1000);
  const output = outputItems(response.parts, context);
  return responseObject(context, {
    id,
    created,
    output,
    finish: response.finish,
    usage: response.usage,
  });
}

function outputItems(parts: IrAssistantPart[], context: ResponseEncodeContext): Item[] {
  const custom = customToolNames(context.request);
  const items: Item[] = [];
  let message: Item[] | undefined;
  for (const part of parts) {
    if (part.type === "text" || part.type === "refusal") {
      if (!message) {
        message = [];
        items.push(messageItem(context.newId("msg_"), message));
      }
      message.push(contentPart(part.type, part.text));
      continue;
    }
    message = undefined;
    if (part.type === "reasoning") items.push(reasoningItem(part, itemIdOf(part, "rs_", context)));
    else {
      const isCustom = custom.has(part.name);
      const id = itemIdOf(part, isCustom ? "ctc_" : "fc_", context);
      items.push(callItem(part, isCustom, id, "completed"));
    }
  }
  return items;
}

/** What a `response` object reports beside the client's echoed parameters. */
export interface ResponseState {
  id: string;
  /** Unix seconds. */
  created: number;
  output: Item[];
  /** Undefined while the response is still being streamed. */
  finish: IrFinish | undefined;
  usage: Usage | undefined;
}

// The echoed parameters are the client's own values, else the API's defaults (`store`
// among them: tollgate keeps what the client does not ask it to leave).
/** The `response` object of a state, with the request parameters the API echoes. */
export function responseObject(context: ResponseEncodeContext, state: ResponseState): Item {
  const body = context.body;
  const { status, incomplete_details } = outcomeOf(state.finish);
  const reasoning = body.reasoning as Record<string, unknown> | null | undefined;
  const text = body.text as Record<string, unknown> | null | undefined;
  return {
    id: state.id,
    object: "response",
    created_at: state.created,
    status,
    background: false,
    error: null,
    incomplete_details,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: context.model,
    output: state.output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: reasoning?.effort ?? null, summary: reasoning?.summary ?? null },
    safety_identifier: body.safety_identifier ?? null,
    service_tier: "default",
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: { type: "text" }, verbosity: "medium", ...text },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? "disabled",
    usage: state.usage && state.finish !== undefined ? encodeUsage(state.usage) : null,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
    ...(status === "completed" ? { completed_at: Math.floor(context.now() / 1000) } : {}),
  };
}
