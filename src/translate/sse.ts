/**
 * Server-sent events as codecs read and write them (every protocol streams its answers as
 * SSE), and their encoder: the one place that writes `data:` lines.
 */

/** One server-sent event; `data` is kept as the raw string so relays lose nothing. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

const ENCODER = new TextEncoder();

/** An SSE comment line: clients ignore it, proxies see traffic on a silent stream. */
export const KEEPALIVE_COMMENT = ": keep-alive\n\n";

/** Encodes one event as SSE text, multi-line data split over several `data:` lines. */
export function encodeSse(event: SseEvent): string {
  let text = "";
  if (event.event !== undefined) text += `event: ${singleLine(event.event)}\n`;
  if (event.id !== undefined) text += `id: ${singleLine(event.id)}\n`;
  const { data } = event;
  // JSON data is one line (JSON.stringify escapes line breaks): no split for every event.
  if (!hasLineBreak(data)) return `${text}data: ${data}\n\n`;
  for (const line of data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return text + "\n";
}

/** Encodes one event as UTF-8 bytes, ready to enqueue on a response body. */
export function encodeSseBytes(event: SseEvent): Uint8Array {
  return ENCODER.encode(encodeSse(event));
}

// A line break inside `event:` or `id:` would end the field early and corrupt the stream.
function singleLine(value: string): string {
  return hasLineBreak(value) ? value.replace(/[\r\n]+/g, " ") : value;
}

function hasLineBreak(value: string): boolean {
  return value.includes("\n") || value.includes("\r");
}
