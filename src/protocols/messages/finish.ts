/**
 * Stop reasons: messages `stop_reason` (Anthropic `StopReason`: end_turn, max_tokens,
 * stop_sequence, tool_use, pause_turn, refusal, model_context_window_exceeded) <-> IR.
 */
import { stringOr } from "../json_read.ts";
import type { IrFinish } from "../../translate/ir.ts";

const FINISH_BY_STOP: Record<string, IrFinish> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  // The context window ran out before max_tokens: for the client, the answer was cut.
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
  pause_turn: "pause",
};

const STOP_BY_FINISH: Record<IrFinish, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
  pause: "pause_turn",
};

/** The IR finish of a messages `stop_reason` (an unknown or missing one is `stop`). */
export function finishOfStop(reason: unknown): IrFinish {
  return FINISH_BY_STOP[stringOr(reason)] ?? "stop";
}

/** The messages `stop_reason` of an IR finish (a matched stop sequence is `stop_sequence`). */
export function stopOfFinish(finish: IrFinish, stopSequence?: string): string {
  return finish === "stop" && stopSequence ? "stop_sequence" : STOP_BY_FINISH[finish];
}
