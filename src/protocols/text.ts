/**
 * The text an upstream produced (message text, tool-call arguments, reasoning), for
 * estimating output tokens when it reported no usage. Stream events are only kept
 * as they come and read at the end if an estimate is needed, so the common case
 * (usage reported) costs one array push per event.
 */
import type { Protocol } from "./protocol.ts";
import type { SseEvent } from "./sse.ts";

/** Collects the events of one stream for their produced text. */
export interface OutputTextCollector {
  observe(event: SseEvent): void;
  /** The text of every observed event. */
  text(): string;
}

/** A collector for one stream in the given upstream protocol. */
export function outputTextCollector(protocol: Protocol): OutputTextCollector {
  const events: SseEvent[] = [];
  return {
    observe: (event) => void events.push(event),
    text: () => events.map((event) => protocol.eventText(event)).join(""),
  };
}
