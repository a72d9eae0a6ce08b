/**
 * Assistant prefill as the fakes see it: a request whose last turn is the assistant's
 * asks the model to continue that text. Chat (a last message with role `assistant`),
 * messages (the same, Anthropic's documented prefill) and responses (a last input item
 * that is an assistant message) all carry one the same way.
 */
import { countTokens } from "gpt-tokenizer";
import type { Behaviour, FakeError, WireProtocol } from "./behaviour.ts";
import {
  contextLengthError,
  prefillRefusedError,
  thinkingPrefillError,
  trailingWhitespaceError,
} from "./provider_errors.ts";
import { requestText, turnText } from "./reply.ts";

/** The text of a request's trailing assistant turn; undefined when the last turn is not one. */
export function trailingAssistantText(request: Record<string, unknown>): string | undefined {
  if (Array.isArray(request.contents)) {
    const last = request.contents.at(-1) as Record<string, unknown> | undefined;
    return last?.role === "model" ? turnText(last.parts, "") : undefined;
  }
  const turns = request.messages ?? request.input;
  if (!Array.isArray(turns)) return undefined;
  const last = turns.at(-1) as Record<string, unknown> | undefined;
  if (last?.role !== "assistant" || (last.type !== undefined && last.type !== "message")) {
    return undefined;
  }
  return turnText(last.content, "");
}

/**
 * What a model continuing `prefill` produces when its whole answer would be `answer`: the
 * rest of `answer` after the prefill with its trailing whitespace trimmed (so the
 * continuation starts with the whitespace the prefill lost), or all of `answer` when there
 * is no prefill or `answer` does not start with it.
 */
export function continuation(answer: string, prefill: string | undefined): string {
  if (prefill === undefined) return answer;
  const kept = prefill.trimEnd();
  return answer.startsWith(kept) ? answer.slice(kept.length) : answer;
}

/**
 * The 400 a model gives for the prompt itself, if any: too long for `contextWindow`, a
 * prefill refused (`refusePrefill`), or (messages, when honouring with `answer`) a
 * prefill Anthropic refuses: one ending in whitespace, or a text prefill with `thinking` on.
 */
export function promptRefusal(
  protocol: WireProtocol | "gemini",
  request: Record<string, unknown>,
  behaviour: Behaviour,
): FakeError | undefined {
  if (behaviour.contextWindow !== undefined) {
    const tokens = countTokens(requestText(request));
    if (tokens > behaviour.contextWindow) {
      return contextLengthError({ window: behaviour.contextWindow, tokens });
    }
  }
  const prefill = trailingAssistantText(request);
  if (prefill === undefined) return undefined;
  if (behaviour.refusePrefill) return prefillRefusedError();
  if (behaviour.answer === undefined || protocol !== "messages") return undefined;
  if (/\s$/.test(prefill)) return trailingWhitespaceError();
  const thinking = (request.thinking as { type?: unknown } | undefined)?.type;
  if (thinking !== "enabled" && thinking !== "adaptive") return undefined;
  return thinkingPrefillError((request.messages as unknown[]).length - 1);
}
