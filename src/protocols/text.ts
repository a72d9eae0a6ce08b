/**
 * The text an upstream produced (message text, tool-call arguments, reasoning), for
 * estimating output tokens when it reported no usage. Usage is almost always reported,
 * so events are kept as they come and parsed only when needed; past a few kilobytes a
 * stream's kept events are turned into their text and let go, so a long stream (a coding
 * agent's thousands of tokens) keeps its text, not every event it relayed.
 */
import type { Protocol } from "./protocol.ts";
import type { SseEvent } from "./sse.ts";

/** Characters of event data one stream keeps unparsed before turning them into text. */
export const KEPT_EVENT_CHARS = 8_192;

/** Collects the events of one stream for their produced text. */
export interface OutputTextCollector {
  observe(event: SseEvent): void;
  /** The text of every observed event. */
  text(): string;
}

/** A collector for one stream in the given upstream protocol. */
export function outputTextCollector(protocol: Protocol): OutputTextCollector {
  let kept: SseEvent[] = [];
  let keptChars = 0;
  let text = "";
  const toText = () => {
    for (const event of kept) text += protocol.eventText(event);
    kept = [];
    keptChars = 0;
  };
  return {
    observe(event) {
      kept.push(event);
      keptChars += event.data.length;
      if (keptChars > KEPT_EVENT_CHARS) toText();
    },
    text() {
      toText();
      return text;
    },
  };
}
