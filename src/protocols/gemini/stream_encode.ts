/**
 * IR events as a Gemini client's `streamGenerateContent?alt=sse` stream, in the shape
 * `@google/genai` parses (`GenerateContentResponse` per `data:` line; see
 * response_shape.ts) and Gemini CLI reads: a chunk per text or thought delta with that
 * piece as its one part, a chunk per whole function call (its arguments gathered until the
 * part ends), then one last chunk with the `finishReason` and the `usageMetadata`. No
 * event names, no comments, no `[DONE]`: the stream just ends. Signatures go as in
 * response_encode.ts, on the next part that is not a thought.
 */
import type { GatewayError } from "../../errors.ts";
import type { ResponseEncodeContext, StreamEncoder } from "../../translate/codec.ts";
import type { IrEvent, IrFinish } from "../../translate/ir.ts";
import type { SseEvent } from "../../translate/sse.ts";
import { streamErrorEvents } from "./errors.ts";
import { reasonOfFinish } from "./finish.ts";
import { functionCallPart, SignatureCarrier } from "./response_encode.ts";
import { CLOSING_PART, responseOf } from "./response_shape.ts";
import type { Usage } from "../../usage.ts";
import { estimatedUsage } from "../../translate/encoding.ts";

type Open =
  | { kind: "text" | "reasoning" }
  | { kind: "tool_call"; id: string; name: string; args: string };

/** An encoder for one Gemini client stream. */
export function createGeminiStreamEncoder(context: ResponseEncodeContext): StreamEncoder {
  const fields = { model: context.model, id: context.newId("") };
  // Every chunk but the last differs only in its part: the rest is written once.
  const shell = JSON.stringify(responseOf([], fields));
  const at = shell.indexOf('"parts":[]') + '"parts":['.length;
  const head = shell.slice(0, at);
  const tail = shell.slice(at);
  const chunk = (part: Record<string, unknown>): SseEvent => ({
    data: head + JSON.stringify(part) + tail,
  });
  const carrier = new SignatureCarrier();
  let open: Open | undefined;
  let usage: Usage | undefined;
  let finish: IrFinish | undefined;
  let ended = false;

  const closeCall = (out: SseEvent[]) => {
    if (open?.kind === "tool_call") {
      out.push(chunk(carrier.carry(functionCallPart(open.id, open.name, open.args))));
    }
    open = undefined;
  };

  return {
    encode(event: IrEvent): SseEvent[] {
      if (ended) return [];
      const out: SseEvent[] = [];
      switch (event.type) {
        case "start":
          if (event.usage) usage = event.usage;
          break;
        case "usage":
          usage = event.usage;
          break;
        case "finish":
          finish = event.reason;
          break;
        case "part_start": {
          closeCall(out);
          const { part } = event;
          if (part.type === "tool_call") {
            open = { kind: "tool_call", id: part.id, name: part.name, args: "" };
          } else if (part.type === "reasoning") {
            // The state of the reasoning before goes out before this one's thoughts.
            const flushed = carrier.flush();
            if (flushed) out.push(chunk(flushed));
            open = { kind: "reasoning" };
          } else open = { kind: "text" };
          break;
        }
        case "text_delta":
        case "refusal_delta":
          if (event.text) out.push(chunk(carrier.carry({ text: event.text })));
          break;
        case "reasoning_delta":
          if (event.text) out.push(chunk({ text: event.text, thought: true }));
          break;
        case "reasoning_opaque": {
          const flushed = carrier.hold(event.opaque);
          if (flushed) out.push(chunk(flushed));
          break;
        }
        case "arguments_delta":
          if (open?.kind === "tool_call") open.args += event.json;
          break;
        case "part_end":
          closeCall(out);
          break;
      }
      return out;
    },
    end(): SseEvent[] {
      if (ended) return [];
      ended = true;
      const out: SseEvent[] = [];
      closeCall(out);
      // A stream cut without a finish still ends as the client expects: `STOP`.
      const last = responseOf([carrier.flush() ?? CLOSING_PART], {
        ...fields,
        finishReason: reasonOfFinish(finish ?? "stop"),
        usage: usage ?? estimatedUsage(context),
      });
      out.push({ data: JSON.stringify(last) });
      return out;
    },
    error(error: GatewayError): SseEvent[] {
      if (ended) return [];
      ended = true;
      return streamErrorEvents(error, context.requestId);
    },
  };
}
