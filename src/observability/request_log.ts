/**
 * The request log: one line per request on stdout, as text for a terminal or JSON for a
 * log shipper. It carries the key's id, never its secret. Much of a line is the client's
 * (the path, the model): the text line escapes whatever could forge a line, split a field
 * or drive a terminal; JSON.stringify escapes control characters itself.
 */
import { formatUsd, microsToUsd } from "../billing/money.ts";
import type { IsoTime } from "./iso_time.ts";
import type { LineWriter } from "./line_writer.ts";
import type { RequestRecord } from "./record.ts";

/** The request log's line formats (`[server] log_format`). */
export type LogFormat = "text" | "json";

/** A finished request as one JSON log object. */
export function requestLogFields(
  record: RequestRecord,
  totalMs: number,
  time: IsoTime,
): Record<string, unknown> {
  return {
    time: time.format(record.time),
    request_id: record.requestId,
    method: record.method,
    path: record.path,
    entry_point: record.entry ?? null,
    key_id: record.keyId ?? null,
    account: record.account ?? null,
    model: record.model ?? null,
    channel: record.channel ?? null,
    affinity: record.affinity ?? null,
    status: record.status,
    outcome: record.outcome ?? null,
    code: record.refusal?.code ?? null,
    attempts: record.attempts,
    input_tokens: record.usage?.input_tokens ?? 0,
    output_tokens: record.usage?.output_tokens ?? 0,
    cached_tokens: record.usage?.cached_tokens ?? 0,
    cost_usd: microsToUsd(record.costMicros ?? 0),
    latency_ms: round(totalMs),
    ttfb_ms: record.firstByteMs === undefined ? null : round(record.firstByteMs),
    upstream_ms: round(record.upstreamMs),
  };
}

/**
 * Characters a text field is not written with: controls (C0, DEL, C1: a line feed, an
 * escape sequence, the one-byte CSI), blanks (which part fields), the backslash (which
 * starts an escape), line and paragraph separators, and the marks that reorder text as
 * a terminal shows it (bidirectional overrides and isolates), lone surrogates too.
 */
const UNSAFE =
  /[\0- \x7f-\x9f\\\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Visible ASCII but the backslash: what a field is written as it is. */
const PLAIN = /^[!-[\]-~]*$/;

/**
 * `text` as one field of a text line: itself when it holds nothing unsafe (nearly always),
 * else with each unsafe character written `\xHH` or `\u{HHHH}` and a backslash `\\`.
 */
export function escapeLogField(text: string): string {
  // Nearly every field is visible ASCII: one simple test rather than the scan.
  return PLAIN.test(text) ? text : text.replace(UNSAFE, escapeCharacter);
}

function escapeCharacter(char: string): string {
  if (char === "\\") return "\\\\";
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
}

/** A finished request as one line of text, each field escaped (escapeLogField). */
export function requestLogText(record: RequestRecord, totalMs: number, time: IsoTime): string {
  let line = `${time.format(record.time)} ${escapeLogField(record.requestId)} ` +
    `${escapeLogField(record.method)} ${escapeLogField(record.path)} ${record.status} ` +
    `${record.outcome ?? "-"}`;
  if (record.refusal) line += ` code=${escapeLogField(record.refusal.code)}`;
  if (record.keyId !== undefined) line += ` key=${escapeLogField(record.keyId)}`;
  if (record.account !== undefined) line += ` account=${escapeLogField(record.account)}`;
  if (record.model !== undefined) line += ` model=${escapeLogField(record.model)}`;
  if (record.channel !== undefined) line += ` channel=${escapeLogField(record.channel)}`;
  if (record.affinity !== undefined) line += ` affinity=${record.affinity}`;
  if (record.attempts > 0) line += ` attempts=${record.attempts}`;
  const usage = record.usage;
  if (usage) {
    line += ` tokens=${usage.input_tokens}/${usage.output_tokens}`;
    if (usage.cached_tokens > 0) line += ` cached=${usage.cached_tokens}`;
  }
  if (record.costMicros) line += ` cost=$${formatUsd(record.costMicros)}`;
  if (record.firstByteMs !== undefined) line += ` ttfb=${round(record.firstByteMs)}ms`;
  return `${line} total=${round(totalMs)}ms`;
}

/** Writes one line per finished request in the given format; `time` stamps it. */
export function logRequest(
  writer: LineWriter,
  format: LogFormat,
  record: RequestRecord,
  totalMs: number,
  time: IsoTime,
): void {
  writer.line(
    format === "json"
      ? JSON.stringify(requestLogFields(record, totalMs, time))
      : requestLogText(record, totalMs, time),
  );
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
