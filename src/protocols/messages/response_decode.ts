/**
 * A messages upstream's whole answer (Anthropic `Message`) as an IR response. Text,
 * thinking (its `signature` as opaque state), redacted thinking and tool calls map one
 * to one; blocks of server-run tools are the upstream's own business and are skipped;
 * usage goes through the protocol's reader (cache tokens added into input).
 */
import { asRecord, fields, listOf, stringOr } from "../json_read.ts";
import { usageFromResponse } from "./usage.ts";
import type { IrAssistantPart, IrResponse } from "../../translate/ir.ts";
import { unwrapOpaque } from "../../translate/opaque.ts";
import { cacheOf } from "./content.ts";
import { finishOfStop } from "./finish.ts";

/** Decodes a messages upstream's `message` body (tolerant of missing fields). */
export function decodeMessagesResponse(json: unknown): IrResponse {
  const body = fields(json);
  const parts = listOf(body.content).flatMap((value) => assistantPartOf(fields(value)) ?? []);
  const response: IrResponse = {
    id: stringOr(body.id),
    model: stringOr(body.model),
    parts,
    finish: finishOfStop(body.stop_reason),
  };
  if (typeof body.stop_sequence === "string") response.stopSequence = body.stop_sequence;
  const usage = usageFromResponse(json);
  if (usage) response.usage = usage;
  return response;
}

/**
 * The IR part of an assistant block (text, thinking, redacted thinking, tool use), from
 * an upstream's answer or a client's history; undefined for any other block. A signature
 * another provider's state came back wrapped in is unwrapped (translate/opaque.ts).
 */
export function assistantPartOf(block: Record<string, unknown>): IrAssistantPart | undefined {
  switch (block.type) {
    case "text":
      return { type: "text", text: stringOr(block.text), ...cacheOf(block) };
    case "thinking": {
      const signature = stringOr(block.signature);
      const opaque = signature ? { opaque: unwrapOpaque(signature, "anthropic_signature") } : {};
      return { type: "reasoning", text: stringOr(block.thinking), ...opaque };
    }
    case "redacted_thinking":
      return {
        type: "reasoning",
        text: "",
        opaque: { kind: "anthropic_redacted", value: stringOr(block.data) },
      };
    case "tool_use":
      return {
        type: "tool_call",
        id: stringOr(block.id),
        name: stringOr(block.name),
        arguments: JSON.stringify(asRecord(block.input) ?? {}),
      };
  }
  return undefined;
}
