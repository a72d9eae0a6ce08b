/**
 * Finish reasons: chat `finish_reason` (OpenAI `ChatCompletion.Choice.finish_reason`)
 * <-> IR. A chat-compatible upstream that calls tools but says `stop` (some vLLM and
 * Ollama builds do) is read as `tool_calls`, so a client's tool loop continues.
 */
import type { IrFinish } from "../../translate/ir.ts";

const IR_BY_CHAT: Record<string, IrFinish> = {
  stop: "stop",
  length: "length",
  // Some compatible servers spell the cap the Anthropic way.
  max_tokens: "length",
  tool_calls: "tool_calls",
  // The deprecated `function_call` is the same outcome as `tool_calls`.
  function_call: "tool_calls",
  content_filter: "content_filter",
};

/** The IR finish of a chat `finish_reason`; `calledTools` says whether the answer called any. */
export function finishOfChat(reason: unknown, calledTools: boolean): IrFinish {
  const finish = typeof reason === "string" ? IR_BY_CHAT[reason] ?? "stop" : "stop";
  return finish === "stop" && calledTools ? "tool_calls" : finish;
}

/**
 * The chat `finish_reason` of an IR finish. Messages' `pause_turn` has no chat
 * equivalent: the turn ended without an answer the client must act on, so `stop`.
 */
export function chatFinishOf(finish: IrFinish, calledTools: boolean): string {
  if (finish === "pause") return "stop";
  return finish === "stop" && calledTools ? "tool_calls" : finish;
}
