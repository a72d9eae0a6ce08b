/**
 * Reasoning in chat messages. Chat has no standard field; compatible servers use
 * `reasoning_content` (DeepSeek, vLLM before 0.10), `reasoning` (OpenRouter, vLLM,
 * Ollama) and OpenRouter's `reasoning_details` array, whose entries carry the opaque
 * state with a `format` naming its origin (OpenRouter "Reasoning Tokens" guide,
 * "reasoning_details" section):
 *
 * | detail                                         | IR                                  |
 * |------------------------------------------------|-------------------------------------|
 * | `reasoning.text` {text, signature}, anthropic  | text + opaque `anthropic_signature` |
 * | `reasoning.encrypted` {data}, anthropic        | opaque `anthropic_redacted`         |
 * | `reasoning.summary` {summary}, openai          | text                                |
 * | `reasoning.encrypted` {data, id}, openai       | opaque `openai_encrypted`, itemId   |
 * | `reasoning.encrypted` {data}, google-gemini    | opaque `gemini_signature`           |
 *
 * Entries with the same `index` (or `id`) are one reasoning part. Opaque state of other
 * origins (xAI) has no IR kind and is left out; its text is kept.
 */
import { asRecord, listOf, stringOr } from "../json_read.ts";
import type { IrOpaque, IrReasoning } from "../../translate/ir.ts";
import { unwrapOpaque } from "../../translate/opaque.ts";

const ANTHROPIC = "anthropic-claude-v1";
const OPENAI = "openai-responses-v1";
const GEMINI = "google-gemini-v1";

/** One `reasoning_details` entry as read. */
export interface ReasoningDetail {
  text: string;
  opaque?: IrOpaque;
  /** The entry's `index`: entries sharing one belong to the same reasoning part. */
  index?: number;
  /** A responses reasoning item id (`rs_…`) the entry names. */
  itemId?: string;
}

// A signature is Anthropic's; encrypted data is OpenAI's unless tagged Anthropic. An
// entry tagged with another origin is not ours to send anywhere.
function opaqueKind(format: string, field: "signature" | "data"): IrOpaque["kind"] | undefined {
  if (format === GEMINI) return field === "data" ? "gemini_signature" : undefined;
  const known = format === "" || format === "unknown" || format === ANTHROPIC ||
    format === OPENAI;
  if (!known) return undefined;
  if (field === "signature") return "anthropic_signature";
  return format === ANTHROPIC ? "anthropic_redacted" : "openai_encrypted";
}

/** Reads one `reasoning_details` entry (tolerant: anything unknown reads as empty). */
export function readDetail(value: unknown): ReasoningDetail {
  const detail = asRecord(value) ?? {};
  const format = stringOr(detail.format);
  const read: ReasoningDetail = { text: "" };
  if (detail.type === "reasoning.text") read.text = stringOr(detail.text);
  if (detail.type === "reasoning.summary") read.text = stringOr(detail.summary);
  const field = detail.type === "reasoning.text" ? "signature" : "data";
  const raw = detail.type === "reasoning.text"
    ? stringOr(detail.signature)
    : detail.type === "reasoning.encrypted"
    ? stringOr(detail.data)
    : "";
  const kind = raw ? opaqueKind(format, field) : undefined;
  if (kind) read.opaque = unwrapOpaque(raw, kind);
  if (typeof detail.index === "number") read.index = detail.index;
  const id = stringOr(detail.id);
  if (id.startsWith("rs_")) read.itemId = id;
  return read;
}

/** The reasoning parts of a whole `reasoning_details` array, in order. */
export function reasoningOfDetails(details: unknown[]): IrReasoning[] {
  const parts: IrReasoning[] = [];
  let lastIndex: number | undefined;
  for (const value of details) {
    const detail = readDetail(value);
    const current = parts[parts.length - 1];
    const sameIndex = detail.index !== undefined && detail.index === lastIndex;
    const sameItem = detail.itemId !== undefined && detail.itemId === current?.itemId;
    const same = current !== undefined && (sameIndex || sameItem) &&
      !(detail.opaque && current.opaque);
    if (!detail.text && !detail.opaque) continue;
    lastIndex = detail.index;
    if (same) {
      current.text += detail.text;
      if (detail.opaque) current.opaque = detail.opaque;
      continue;
    }
    const part: IrReasoning = { type: "reasoning", text: detail.text };
    if (detail.opaque) part.opaque = detail.opaque;
    if (detail.itemId) part.itemId = detail.itemId;
    parts.push(part);
  }
  return parts;
}

/**
 * The reasoning parts of a chat message: `reasoning_details` when it has any (it holds
 * the opaque state, and the text too), else `reasoning_content` or `reasoning` text.
 */
export function reasoningOfMessage(message: Record<string, unknown>): IrReasoning[] {
  const fromDetails = reasoningOfDetails(listOf(message.reasoning_details));
  if (fromDetails.length > 0) return fromDetails;
  const text = stringOr(message.reasoning_content) || stringOr(message.reasoning);
  return text ? [{ type: "reasoning", text }] : [];
}

/**
 * The `reasoning_details` entries of one reasoning part for a chat client, tagged as
 * OpenRouter tags them, so the client sends them back and `readDetail` knows their kind.
 */
export function detailsOfReasoning(part: IrReasoning, index: number): Record<string, unknown>[] {
  const opaque = part.opaque;
  const id = part.itemId ?? null;
  if (opaque?.kind === "openai_encrypted") {
    const details: Record<string, unknown>[] = [];
    if (part.text) {
      details.push({ type: "reasoning.summary", summary: part.text, id, format: OPENAI, index });
    }
    details.push({ type: "reasoning.encrypted", data: opaque.value, id, format: OPENAI, index });
    return details;
  }
  if (opaque?.kind === "anthropic_redacted") {
    return [{ type: "reasoning.encrypted", data: opaque.value, id, format: ANTHROPIC, index }];
  }
  if (opaque?.kind === "gemini_signature") {
    const details: Record<string, unknown>[] = [];
    if (part.text) {
      details.push({ type: "reasoning.text", text: part.text, id, format: GEMINI, index });
    }
    details.push({ type: "reasoning.encrypted", data: opaque.value, id, format: GEMINI, index });
    return details;
  }
  const detail: Record<string, unknown> = {
    type: "reasoning.text",
    text: part.text,
    id,
    format: opaque ? ANTHROPIC : "unknown",
    index,
  };
  if (opaque) detail.signature = opaque.value;
  return [detail];
}
