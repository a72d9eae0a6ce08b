/**
 * One probe: one HTTP request to a gateway and what came back, as a value. Any gateway that
 * claims these protocols may be on the other end, so only plain `fetch` and the wire formats
 * are assumed. Every probe has a deadline covering its whole answer, so a stream that never
 * sends its final event is reported as such instead of hanging doctor.
 */
import { type Auth, ENTRY_POINT_SHAPES, type EntryPoint, probeHeaders } from "./entry_points.ts";
import { redactKeyIn } from "./key.ts";
import {
  type Found,
  type ProbeOutcome,
  readAnswer,
  readError,
  readModels,
  readStream,
  requestIdOf,
} from "./read_answer.ts";
import { isoWithOffset } from "./time.ts";

export type { ProbeOutcome } from "./read_answer.ts";

/** What a probe calls: the model listing or one of the entry points. */
export type ProbeEndpoint = "models" | EntryPoint;

/** One request to make. */
export interface ProbeRequest {
  id: number;
  endpoint: ProbeEndpoint;
  /** The service root; the endpoint's path (with "/v1") is appended. */
  root: string;
  auth: Auth;
  stream: boolean;
  /** The model asked for; null for the model listing. */
  model: string | null;
}

/** What one probe found; its fields are the `--json` output's, so they are snake_case. */
export interface ProbeResult {
  id: number;
  endpoint: ProbeEndpoint;
  method: "GET" | "POST";
  url: string;
  auth: Auth;
  stream: boolean;
  model: string | null;
  ok: boolean;
  outcome: ProbeOutcome;
  /** The HTTP status, or null when no answer came. */
  status: number | null;
  request_id: string | null;
  /** When the request was sent, with time zone. */
  time: string;
  duration_ms: number;
  /** What was seen, in a few words: "3 models", "stream ended without [DONE]". */
  detail: string;
  /** The error body in full (the key redacted), or null when there was none. */
  error_body: string | null;
  /** What the failure means and what to do; empty when ok. Filled by `diagnoseProbe`. */
  diagnosis: string;
}

/** What a probe runs with. */
export interface ProbeDeps {
  fetch: typeof fetch;
  /** Wall clock in ms since the epoch, for the report's time. */
  now: () => number;
  key: string;
  timeoutMs: number;
}

/** A probe's result and, for a whole JSON answer, the parsed body (the model list needs it). */
export interface ProbeAnswer {
  result: ProbeResult;
  json: unknown;
}

/** The URL a probe calls (Gemini's names the model, and streams with `?alt=sse`). */
export function probeUrl(
  root: string,
  endpoint: ProbeEndpoint,
  model: string | null = null,
  stream = false,
): string {
  if (endpoint === "models") return `${root}/v1/models`;
  const shape = ENTRY_POINT_SHAPES[endpoint];
  return `${root}${shape.urlPath && model !== null ? shape.urlPath(model, stream) : shape.path}`;
}

/** Makes one request and reads its answer within the deadline; never throws. */
export async function runProbe(request: ProbeRequest, deps: ProbeDeps): Promise<ProbeAnswer> {
  const method = request.endpoint === "models" ? "GET" : "POST";
  const url = probeUrl(request.root, request.endpoint, request.model, request.stream);
  const startedAt = deps.now();
  const started = performance.now();
  const base = {
    id: request.id,
    endpoint: request.endpoint,
    method,
    url,
    auth: request.auth,
    stream: request.stream,
    model: request.model,
    time: isoWithOffset(startedAt),
    diagnosis: "",
  } as const;
  const finish = (found: Found, json: unknown = undefined): ProbeAnswer => ({
    result: {
      ...base,
      ...found,
      ok: found.outcome === "ok",
      duration_ms: Math.round(performance.now() - started),
      error_body: found.error_body === null ? null : redactKeyIn(found.error_body, deps.key),
      detail: redactKeyIn(found.detail, deps.key),
    },
    json,
  });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deps.timeoutMs);
  let response: Response | undefined;
  try {
    const shape = request.endpoint === "models" ? undefined : ENTRY_POINT_SHAPES[request.endpoint];
    response = await deps.fetch(url, {
      method,
      headers: probeHeaders(request.endpoint, request.auth, deps.key),
      body: shape && request.model !== null
        ? JSON.stringify(shape.body(request.model, request.stream))
        : undefined,
      signal: controller.signal,
      redirect: "manual",
    });
    if (response.status < 200 || response.status > 299) {
      return finish(await readError(response));
    }
    if (shape === undefined) return finish(...await readModels(response));
    if (request.stream) return finish(await readStream(response, shape, controller.signal));
    return finish(await readAnswer(response, shape));
  } catch (error) {
    if (controller.signal.aborted) {
      return finish(timedOut(request, response, deps.timeoutMs));
    }
    return finish({
      outcome: "network_error",
      status: response?.status ?? null,
      request_id: response ? requestIdOf(response.headers, null) : null,
      detail: describeError(error),
      error_body: null,
    });
  } finally {
    clearTimeout(timer);
    // A body left unread holds its connection open; nothing more is wanted from it.
    await response?.body?.cancel().catch(() => {});
  }
}

/** A stream whose final event had not arrived, or an answer that had not, by the deadline. */
function timedOut(request: ProbeRequest, response: Response | undefined, timeoutMs: number) {
  const finalEvent = request.endpoint === "models"
    ? undefined
    : ENTRY_POINT_SHAPES[request.endpoint].finalEvent;
  const what = response === undefined
    ? "no answer"
    : request.stream && finalEvent
    ? `the stream started (HTTP ${response.status}) but sent no "${finalEvent}"`
    : `the answer (HTTP ${response.status}) did not finish`;
  return {
    outcome: "timeout",
    status: response?.status ?? null,
    request_id: response ? requestIdOf(response.headers, null) : null,
    detail: `${what} within ${timeoutMs} ms`,
    error_body: null,
  } as const;
}

/** A fetch failure in one line: Deno puts the useful cause (refused, DNS) in `cause`. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`.split("\n")[0] ?? error.message;
}
