/**
 * Reading a gateway's answer to a probe: an error, the model list, a whole answer or a
 * stream up to its final event, each turned into what the probe found. Streams are parsed
 * by the one SSE reader (`eventsource-parser` underneath).
 */
import { readSse } from "../upstream/sse.ts";
import { type EntryPointShape, field } from "./entry_points.ts";

/** How a probe ended. */
export type ProbeOutcome =
  | "ok"
  | "http_error"
  | "bad_answer"
  | "stream_error"
  | "incomplete_stream"
  | "timeout"
  | "network_error";

/** What a reader found; the probe adds the request's own fields. */
export interface Found {
  outcome: ProbeOutcome;
  /** The HTTP status, or null when no answer came. */
  status: number | null;
  request_id: string | null;
  detail: string;
  error_body: string | null;
}

// Error bodies are kept whole for the report, up to a size no error body reaches.
const MAX_BODY_CHARS = 65_536;
// Gateways differ in the header's name (the spec leaves it open); these are the usual ones.
const REQUEST_ID_HEADERS = ["x-request-id", "request-id", "x-trace-id", "trace-id"];

/** An answer outside 2xx: its error body whole, summary and request id. */
export async function readError(response: Response): Promise<Found> {
  const text = await response.text();
  const json = parseJson(text);
  // Where a redirect leads and when a limit lifts are in headers, not in the body.
  const location = response.headers.get("location");
  const retryAfter = response.headers.get("retry-after");
  const notes = [
    location ? `redirects to ${location}` : undefined,
    retryAfter ? `retry after ${retryAfter} s` : undefined,
  ].filter((note) => note !== undefined);
  return {
    outcome: "http_error",
    status: response.status,
    request_id: requestIdOf(response.headers, json),
    detail: [errorSummary(json) ?? `HTTP ${response.status}`, ...notes].join("; "),
    error_body: text.slice(0, MAX_BODY_CHARS),
  };
}

/** A 2xx answer to GET /v1/models: the parsed list, when it is one. */
export async function readModels(response: Response): Promise<[Found, unknown]> {
  const text = await response.text();
  const json = parseJson(text);
  const data = field(json, "data");
  const common = { status: response.status, request_id: requestIdOf(response.headers, json) };
  if (!Array.isArray(data)) {
    return [{
      ...common,
      outcome: "bad_answer",
      detail: 'the answer is not a model list (no "data" array)',
      error_body: text.slice(0, MAX_BODY_CHARS),
    }, undefined];
  }
  return [{
    ...common,
    outcome: "ok",
    detail: count(data.length, "model"),
    error_body: null,
  }, json];
}

/** A 2xx whole answer: whether it is the entry point's answer format. */
export async function readAnswer(response: Response, shape: EntryPointShape): Promise<Found> {
  const text = await response.text();
  const json = parseJson(text);
  const common = { status: response.status, request_id: requestIdOf(response.headers, json) };
  if (!shape.isAnswer(json)) {
    return {
      ...common,
      outcome: "bad_answer",
      detail: `the answer is not a ${shape.path} answer`,
      error_body: text.slice(0, MAX_BODY_CHARS),
    };
  }
  return { ...common, outcome: "ok", detail: "answered", error_body: null };
}

/** A 2xx stream, read until its final event, an error event or its end. */
export async function readStream(
  response: Response,
  shape: EntryPointShape,
  signal: AbortSignal,
): Promise<Found> {
  const common = { status: response.status, request_id: requestIdOf(response.headers, null) };
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream") || response.body === null) {
    const text = await response.text();
    return {
      ...common,
      outcome: "bad_answer",
      detail: `asked for a stream, got "${type || "no content type"}" instead of SSE`,
      error_body: text.slice(0, MAX_BODY_CHARS),
    };
  }
  let events = 0;
  for await (const event of readSse(response.body, signal)) {
    events++;
    if (shape.isError(event)) {
      return {
        ...common,
        outcome: "stream_error",
        detail: `the stream sent an error event after ${count(events - 1, "event")}`,
        error_body: event.data.slice(0, MAX_BODY_CHARS),
      };
    }
    // Stop at the final event: a gateway that keeps the connection open after it is still right.
    if (shape.isFinal(event)) {
      return { ...common, outcome: "ok", detail: count(events, "event"), error_body: null };
    }
  }
  return {
    ...common,
    outcome: "incomplete_stream",
    detail: `the stream closed after ${count(events, "event")} without "${shape.finalEvent}"`,
    error_body: null,
  };
}

/** The request id a support person asks for: from a response header, else the error body. */
export function requestIdOf(headers: Headers, body: unknown): string | null {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers.get(name);
    if (value) return value;
  }
  const fromBody = field(field(body, "error"), "request_id") ?? field(body, "request_id");
  return typeof fromBody === "string" && fromBody !== "" ? fromBody : null;
}

/** "code: message" of an error body in either shape, or undefined when it has neither. */
function errorSummary(body: unknown): string | undefined {
  const error = field(body, "error");
  const message = field(error, "message") ?? (typeof error === "string" ? error : undefined);
  const code = field(error, "code") ?? field(error, "type");
  if (typeof message !== "string") return undefined;
  return typeof code === "string" && code !== "" ? `${code}: ${message}` : message;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** "1 event", "3 events". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
