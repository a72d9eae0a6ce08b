/**
 * The spec's support report for one failed probe (Errors, rule 6): request id, time with time
 * zone, model, endpoint, HTTP status and the full error body, with the key redacted, ready to
 * paste into a message to the gateway's operator.
 */
import type { ProbeResult } from "./probe.ts";

/** One failure as the gateway's operator needs it. */
export interface SupportReport {
  probe: number;
  request_id: string | null;
  time: string;
  model: string | null;
  endpoint: string;
  auth: string;
  stream: boolean;
  status: number | null;
  error: string;
  error_body: string | null;
  /** The key, redacted: `sk-…abcd`. */
  key: string;
}

/** The support report of a failed probe. */
export function supportReport(result: ProbeResult, redactedKey: string): SupportReport {
  return {
    probe: result.id,
    request_id: result.request_id,
    time: result.time,
    model: result.model,
    endpoint: `${result.method} ${result.url}`,
    auth: result.auth === "bearer" ? "Authorization: Bearer" : "x-api-key",
    stream: result.stream,
    status: result.status,
    error: result.detail,
    error_body: result.error_body,
    key: redactedKey,
  };
}

/** The report as text lines, one field a line, the error body last and whole. */
export function formatSupportReport(report: SupportReport): string {
  const lines: [string, string][] = [
    ["request id", report.request_id ?? "(none returned)"],
    ["time", report.time],
    ["model", report.model ?? "-"],
    ["endpoint", `${report.endpoint}${report.stream ? " (stream)" : ""}`],
    ["key", `${report.key} as ${report.auth}`],
    ["status", report.status === null ? "no answer" : String(report.status)],
    ["error", report.error],
    ["error body", report.error_body ?? "(none)"],
  ];
  const width = Math.max(...lines.map(([name]) => name.length));
  return lines.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join("\n");
}
