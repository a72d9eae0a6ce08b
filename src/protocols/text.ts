/**
 * The text an upstream produced (message text, tool-call arguments, reasoning), for
 * estimating output tokens when it reported no usage. Stream events are only kept
 * as they come and parsed at the end if an estimate is needed, so the common case
 * (usage reported) costs one array push per event.
 */
import type { EntryProtocol } from "../config/schema.ts";
import type { SseEvent } from "./sse.ts";

/** Collects the events of one stream, or reads a whole response, for their produced text. */
export interface OutputTextCollector {
  observe(event: SseEvent): void;
  /** The text of every observed event. */
  text(): string;
  /** The text of a non-stream response body. */
  fromResponse(json: unknown): string;
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json =>
  typeof value === "object" && value !== null ? value as Json : {};
const str = (value: unknown): string => (typeof value === "string" ? value : "");
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Text of one event in a protocol's stream. */
function eventText(protocol: EntryProtocol, event: SseEvent): string {
  if (protocol === "responses" && !event.event?.endsWith(".delta")) return "";
  if (protocol === "messages" && event.event !== "content_block_delta") return "";
  let data: Json;
  try {
    data = obj(JSON.parse(event.data));
  } catch {
    return "";
  }
  switch (protocol) {
    case "chat":
      return list(data.choices).map((choice) => {
        const delta = obj(obj(choice).delta);
        return str(delta.content) + str(delta.reasoning_content) +
          list(delta.tool_calls).map((call) => str(obj(obj(call).function).arguments)).join("");
      }).join("");
    case "responses":
      return str(data.delta);
    case "messages": {
      const delta = obj(data.delta);
      return str(delta.text) + str(delta.partial_json) + str(delta.thinking);
    }
  }
}

/** Text of a whole non-stream response in a protocol. */
function responseText(protocol: EntryProtocol, json: unknown): string {
  const body = obj(json);
  switch (protocol) {
    case "chat":
      return list(body.choices).map((choice) => {
        const message = obj(obj(choice).message);
        return str(message.content) + str(message.reasoning_content) +
          list(message.tool_calls).map((call) => str(obj(obj(call).function).arguments)).join("");
      }).join("");
    case "responses":
      return list(body.output).map((item) => {
        const output = obj(item);
        return str(output.arguments) +
          list(output.content).map((part) => str(obj(part).text)).join("") +
          list(output.summary).map((part) => str(obj(part).text)).join("");
      }).join("");
    case "messages":
      return list(body.content).map((block) => {
        const content = obj(block);
        return str(content.text) + str(content.thinking) +
          (content.input === undefined ? "" : JSON.stringify(content.input));
      }).join("");
  }
}

/** A collector for one request's output in the given upstream protocol. */
export function outputTextCollector(protocol: EntryProtocol): OutputTextCollector {
  const events: SseEvent[] = [];
  return {
    observe: (event) => void events.push(event),
    text: () => events.map((event) => eventText(protocol, event)).join(""),
    fromResponse: (json) => responseText(protocol, json),
  };
}
