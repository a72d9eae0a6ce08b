/**
 * The text an upstream produced (message text, tool-call arguments, reasoning), for
 * estimating output tokens when it reported no usage. Usage is almost always reported,
 * so events are kept as they come and parsed only when needed; past a few kilobytes a
 * stream's kept events are turned into their text and let go, so a long stream (a coding
 * agent's thousands of tokens) keeps its text, not every event it relayed.
 */
import type { SseEvent } from "./sse.ts";

/**
 * Characters of event data one stream keeps unparsed before turning them into text: few
 * enough that many concurrent streams keep little, since a parse's objects take more
 * memory than the data they came from (bench/README.md).
 */
export const KEPT_EVENT_CHARS = 2_048;

/** Collects the events of one stream for their produced text. */
export interface OutputTextCollector {
  observe(event: SseEvent): void;
  /** The text of every observed event. */
  text(): string;
}

/** A collector for one stream in the given upstream protocol. */
export function outputTextCollector(
  protocol: { eventText(event: SseEvent): string },
): OutputTextCollector {
  let kept: SseEvent[] = [];
  let keptChars = 0;
  /** The text of the events let go, a string of its own for each batch of them. */
  const parts: string[] = [];
  const toText = () => {
    let batch = "";
    for (const event of kept) batch += protocol.eventText(event);
    if (batch !== "") parts.push(detached(batch));
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
      return parts.join("");
    },
  };
}

/**
 * `text` copied into one string of its own. A piece read out of an event's data is a
 * view of that whole data string in V8, and a `+=` chain a tree of its pieces: kept as
 * they are, a stream's text would keep every event it came from, for as long as the stream
 * lasts. Slicing a chain copies it whole first.
 */
function detached(text: string): string {
  return ` ${text}`.slice(1);
}
