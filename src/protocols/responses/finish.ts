/**
 * Finish reasons: a response's `status` and `incomplete_details.reason` (OpenAI
 * `Response`) <-> IR. `completed` with call items is `tool_calls`; `incomplete` is
 * `length` (`max_output_tokens`) or `content_filter`.
 */
import { fields } from "../json_read.ts";
import type { IrFinish } from "../../translate/ir.ts";

/** The IR finish of a `response` object; `calledTools` says whether its output called any. */
export function finishOfResponse(
  response: Record<string, unknown>,
  calledTools: boolean,
): IrFinish {
  if (response.status === "incomplete") {
    return fields(response.incomplete_details).reason === "content_filter"
      ? "content_filter"
      : "length";
  }
  return calledTools ? "tool_calls" : "stop";
}

/** A response's `status` and `incomplete_details`. */
export interface Outcome {
  status: "in_progress" | "completed" | "incomplete";
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
}

// `tool_calls`, `stop` and messages' `pause_turn` complete the response: a responses
// client tells calls by the items themselves.
/** The status and `incomplete_details` of an IR finish (undefined: still running). */
export function outcomeOf(finish: IrFinish | undefined): Outcome {
  if (finish === undefined) return { status: "in_progress", incomplete_details: null };
  if (finish === "length") {
    return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  }
  if (finish === "content_filter") {
    return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  }
  return { status: "completed", incomplete_details: null };
}
