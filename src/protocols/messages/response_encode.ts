/**
 * An IR answer as a messages client's `message` (Anthropic `Message`): `{id, type,
 * role, model, content, stop_reason, stop_sequence, usage}`. Reasoning becomes thinking
 * blocks whose `signature` carries the opaque state (another provider's wrapped, see
 * translate/opaque.ts, so it comes back when the client sends the history), or redacted thinking.
 */
import { encodeUsage } from "./usage.ts";
import type { ResponseEncodeContext } from "../../translate/codec.ts";
import type { IrAssistantPart, IrResponse } from "../../translate/ir.ts";
import { wrapOpaque } from "../../translate/opaque.ts";
import { toolId } from "./content.ts";
import { stopOfFinish } from "./finish.ts";
import { inputOf } from "../../translate/encoding.ts";
import { estimatedUsage } from "../../translate/encoding.ts";

/** The content block of an answer's part, as a messages client reads it. */
export function blockOf(part: IrAssistantPart): Record<string, unknown> {
  switch (part.type) {
    case "text":
    case "refusal":
      // Messages has no refusal block: a refusal is text, with `stop_reason: "refusal"`.
      return { type: "text", text: part.text };
    case "reasoning":
      if (part.opaque?.kind === "anthropic_redacted") {
        return { type: "redacted_thinking", data: part.opaque.value };
      }
      return {
        type: "thinking",
        thinking: part.text,
        signature: part.opaque ? wrapOpaque(part.opaque, "anthropic_signature") : "",
      };
    case "tool_call":
      return {
        type: "tool_use",
        id: toolId(part.id),
        name: part.name,
        input: inputOf(part.arguments),
      };
  }
}

/** The client's `message` body for an answer. */
export function encodeMessagesResponse(
  response: IrResponse,
  context: ResponseEncodeContext,
): Record<string, unknown> {
  return {
    id: context.newId("msg_"),
    type: "message",
    role: "assistant",
    model: context.model,
    content: response.parts.map(blockOf),
    stop_reason: stopOfFinish(response.finish, response.stopSequence),
    stop_sequence: response.stopSequence ?? null,
    usage: encodeUsage(response.usage ?? estimatedUsage(context)),
  };
}
