/**
 * What a failed probe means and what to do about it, following the spec's status table and
 * its troubleshooting rules (401 is the key or its header, 403 the key's permissions, 404 the
 * address or an entry point not exposed, 503 no usable channel for the model).
 */
import type { BaseUrlCheck } from "./base_url.ts";
import { ENTRY_POINT_SHAPES, field } from "./entry_points.ts";
import type { ProbeResult } from "./probe.ts";

/** What the other probes showed, which changes what one failure means. */
export interface DiagnosisContext {
  baseUrl: BaseUrlCheck;
  /** Whether GET /v1/models accepted the key. */
  modelsOk: boolean;
  /** Every probe made, to compare one way of sending the key with the other. */
  results: readonly ProbeResult[];
  timeoutMs: number;
}

/** The diagnosis of one probe: empty when it succeeded. */
export function diagnoseProbe(result: ProbeResult, context: DiagnosisContext): string {
  if (result.ok) return "";
  switch (result.outcome) {
    case "timeout":
      return timeoutDiagnosis(result, context.timeoutMs);
    case "network_error":
      return `Could not reach ${new URL(result.url).origin}: ${result.detail}. Check the host, ` +
        `the port and the scheme (http or https), and that the gateway is running.`;
    case "incomplete_stream":
      return `The stream closed without its final event "${finalEvent(result)}": the gateway ` +
        `or a proxy in front of it cut it short, so clients report a broken stream.`;
    case "stream_error":
      return `The stream started, then sent an error event: ${
        errorCode(result) ?? "see the body"
      }. ` +
        `${statusAdvice(result, context, statusOfCode(errorCode(result))) ?? ""}`.trim();
    case "bad_answer":
      return badAnswerDiagnosis(result);
    case "http_error":
      return statusAdvice(result, context, result.status) ??
        `HTTP ${result.status}: see the error body.`;
    case "ok":
      return "";
  }
}

function timeoutDiagnosis(result: ProbeResult, timeoutMs: number): string {
  if (result.stream && result.status !== null) {
    return `The stream never sent its final event "${
      finalEvent(result)
    }" within ${timeoutMs} ms: ` +
      `the gateway, or a proxy buffering in front of it, does not finish streams here, so ` +
      `clients hang until their own timeout. Check proxy buffering and the gateway's stream ` +
      `handling; a slow model needs a larger --timeout-ms.`;
  }
  return `No ${result.status === null ? "answer" : "whole answer"} within ${timeoutMs} ms: the ` +
    `gateway or its upstream is slow or stuck. Retry with a larger --timeout-ms; if it ` +
    `repeats, report it.`;
}

function badAnswerDiagnosis(result: ProbeResult): string {
  if (result.endpoint === "models") {
    return `The address answers, but not with a model list: the base URL may point at another ` +
      `service (a web page, a proxy) rather than the gateway's API.`;
  }
  if (result.stream) {
    return `The gateway answered "stream": true without server-sent events: streaming ` +
      `clients cannot read it.`;
  }
  return `The answer is not in the format of ${result.url.slice(result.url.lastIndexOf("/v1"))}: ` +
    `the gateway does not speak this protocol faithfully, so its clients may fail to read it.`;
}

/** Advice for an HTTP status, or undefined for a status the spec does not name. */
function statusAdvice(
  result: ProbeResult,
  context: DiagnosisContext,
  status: number | null,
): string | undefined {
  const code = errorCode(result);
  if (code === "insufficient_user_quota" || /insufficient.*quota/i.test(result.detail)) {
    return `The key's token quota or the account's balance is used up: top up the ` +
      `account or raise the key's quota; a positive balance does not refill a key's quota.`;
  }
  if (code === "model_not_found") {
    return `The model "${result.model}" is unknown to this key's group: use an id exactly as ` +
      `GET /v1/models lists it.`;
  }
  if (status === null) return undefined;
  if (status >= 300 && status < 400) {
    return `The address redirects (${result.detail}): configure the address it redirects to; ` +
      `clients do not follow redirects of POST requests.`;
  }
  switch (status) {
    case 400:
      return `The gateway refused the minimal request (400${withCode(code)}): this entry point ` +
        `may not accept the model, or wants other fields; the error body says which.`;
    case 401:
      return unauthorizedAdvice(result, context);
    case 403:
      return forbiddenAdvice(result, context);
    case 404:
      return notFoundAdvice(result, context);
    case 413:
      return `The gateway refused the request as too large (413), although it is tiny: a limit ` +
        `in front of the gateway is set very low.`;
    case 429:
      return `Rate limited (429${withCode(code)}): wait and retry; the limit may be per key, ` +
        `account or model.`;
    case 500:
      return `The gateway failed internally (500${withCode(code)}): retry once; if it repeats, ` +
        `send the support report to the gateway's operator.`;
    case 502:
      return `The gateway's upstream failed (502${withCode(code)}): retry; if it repeats, the ` +
        `channel behind "${result.model}" is broken; send the support report to the operator.`;
    case 503:
      return `No usable channel for "${result.model}" on ${entryPath(result)} ` +
        `(503${withCode(code)}): the gateway has no working upstream for this model on this ` +
        `entry point, or the model is unknown. Use another entry point or model, or ask the ` +
        `operator to add a channel.`;
    case 504:
      return `The upstream timed out (504): retry with a smaller request; if it repeats, the ` +
        `channel behind "${result.model}" is too slow.`;
    case 529:
      return `The upstream is overloaded (529): back off briefly and retry a few times.`;
  }
  return undefined;
}

function unauthorizedAdvice(result: ProbeResult, context: DiagnosisContext): string {
  if (result.endpoint === "models" || !context.modelsOk) {
    return `The key is rejected (401): check it is complete (no spaces or line breaks), not ` +
      `expired or disabled, and has quota left. After replacing a key, check it with ` +
      `GET /v1/models first.`;
  }
  const other = context.results.find((candidate) =>
    candidate.endpoint === result.endpoint && candidate.auth !== result.auth && candidate.ok
  );
  if (other && result.auth === "x-api-key") {
    return `This gateway rejects the key sent as x-api-key (401) but accepts it as ` +
      `"Authorization: Bearer": clients that send x-api-key fail (Claude Code: set ` +
      `ANTHROPIC_AUTH_TOKEN instead of ANTHROPIC_API_KEY).`;
  }
  if (other) {
    return `This gateway rejects the key sent as "Authorization: Bearer" (401) but accepts it ` +
      `as x-api-key: configure the client to send x-api-key (Claude Code: ANTHROPIC_API_KEY).`;
  }
  return `The key is rejected on ${entryPath(result)} (401) although GET /v1/models accepts ` +
    `it: this entry point wants the key in another header, or the key may not use it.`;
}

function forbiddenAdvice(result: ProbeResult, context: DiagnosisContext): string {
  if (/\bIP\b|allowlist|address/i.test(result.detail)) {
    return `The key's IP allowlist refuses this machine's address (403): a proxy or CDN may ` +
      `change the address the gateway sees; ask the operator to allow it.`;
  }
  if (result.endpoint === "models" || !context.modelsOk) {
    return `The key is valid but refused (403): the account is disabled or the key's group ` +
      `may not use this gateway; ask the operator.`;
  }
  return `GET /v1/models accepts this key, so the refusal (403) is the key's model restriction ` +
    `or its group's models: "${result.model}" is not allowed for this key.`;
}

function notFoundAdvice(result: ProbeResult, context: DiagnosisContext): string {
  const { baseUrl } = context;
  if (result.endpoint === "models") {
    const mistakes = baseUrl.findings
      .filter((finding) => finding.severity === "error")
      .map((finding) => finding.message);
    const fix = baseUrl.suggestedRoot !== null && baseUrl.suggestedRoot !== baseUrl.probeRoot
      ? ` The service root is most likely ${baseUrl.suggestedRoot}: configure ` +
        `${baseUrl.suggestedRoot}/v1 for OpenAI-style clients and ${baseUrl.suggestedRoot} ` +
        `for messages-only clients.`
      : ` Check the host and any path prefix; the base URL must lead to the API, whose ` +
        `model list is at <base URL>/v1/models.`;
    return `Wrong address: ${result.url} answered 404.${
      mistakes.length > 0 ? ` ${mistakes.join(" ")}` : ""
    }${fix}`;
  }
  if (code404IsModel(result)) {
    return `The upstream does not know the model "${result.model}" (404): use an id exactly as ` +
      `GET /v1/models lists it.`;
  }
  return `This gateway does not expose ${entryPath(result)} (404): clients that need this ` +
    `entry point cannot use it here.`;
}

function code404IsModel(result: ProbeResult): boolean {
  return /model/i.test(result.detail) && !/path|route|endpoint/i.test(result.detail);
}

/** The `code` (else `type`) of an error body in either shape. */
function errorCode(result: ProbeResult): string | undefined {
  if (result.error_body === null) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(result.error_body);
  } catch {
    return undefined;
  }
  const error = field(body, "error") ?? field(field(body, "response"), "error");
  const code = field(error, "code") ?? field(error, "type");
  return typeof code === "string" && code !== "" ? code : undefined;
}

// A stream's error event has no HTTP status of its own; its code tells what it would have been.
function statusOfCode(code: string | undefined): number | null {
  const statuses: Record<string, number> = {
    overloaded_error: 529,
    rate_limit_exceeded: 429,
    rate_limit_error: 429,
    upstream_timeout: 504,
    upstream_error: 502,
    bad_response_status_code: 502,
    gateway_error: 500,
    api_error: 500,
  };
  return code === undefined ? null : statuses[code] ?? null;
}

function withCode(code: string | undefined): string {
  return code === undefined ? "" : `, ${code}`;
}

function entryPath(result: ProbeResult): string {
  return result.endpoint === "models" ? "/v1/models" : ENTRY_POINT_SHAPES[result.endpoint].path;
}

function finalEvent(result: ProbeResult): string {
  return result.endpoint === "models" ? "" : ENTRY_POINT_SHAPES[result.endpoint].finalEvent;
}
