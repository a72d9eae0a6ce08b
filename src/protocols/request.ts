/**
 * Parsing an entry-point request body: zod validates only what the gateway needs, and
 * the client's object is kept as it came, so unknown fields reach the upstream untouched
 * and a same-protocol request is relayed byte for byte. Each protocol's `parseRequest` is
 * built from these helpers.
 */
import type * as z from "zod/mini";
import { GatewayError } from "../errors.ts";
import type { EntryRequest, ProtocolName } from "./types.ts";

/** A path into a request body, as an API error names it: `["messages", 0, "role"]`. */
export type FieldPath = readonly (string | number)[];

/** Where a schema first refused a body, and what it expected there. */
export interface Fault {
  path: FieldPath;
  expected: string;
}

/** The parsed request, with `maxOutputTokens` only when the client set one. */
export function entryRequest(
  protocol: ProtocolName,
  model: string,
  stream: boolean | null | undefined,
  maxOutputTokens: number | null | undefined,
  body: Record<string, unknown>,
): EntryRequest {
  const request: EntryRequest = { protocol, model, stream: stream === true, body };
  if (maxOutputTokens !== undefined && maxOutputTokens !== null) {
    request.maxOutputTokens = maxOutputTokens;
  }
  return request;
}

/**
 * The fields `envelope` reads from `body`, beside the client's own object; else a 400
 * `invalid_request` naming the first field at fault.
 */
export function readEnvelope<S extends z.ZodMiniType<Record<string, unknown>>>(
  envelope: S,
  body: unknown,
): { fields: z.output<S>; body: Record<string, unknown> } {
  const result = envelope.safeParse(body);
  if (result.success) return { fields: result.data, body: body as Record<string, unknown> };
  // The first fault is enough: the client fixes one field at a time, as with the real APIs.
  const fault = faultOf(result.error.issues);
  if (fault.path.length === 0) {
    throw new GatewayError(
      400,
      "invalid_request",
      `Invalid request: the body must be ${fault.expected}, got ${describeValue(body)}.`,
    );
  }
  const param = formatPath(fault.path);
  const value = valueAt(body, fault.path);
  const message = value === undefined
    ? `Invalid request: \`${param}\` is required and must be ${fault.expected}.`
    : `Invalid request: \`${param}\` must be ${fault.expected}, got ${describeValue(value)}.`;
  throw new GatewayError(400, "invalid_request", message, { param });
}

/** The first fault of `body` against `envelope`, in the envelope's field order; undefined when valid. */
export function firstFault(envelope: z.ZodMiniType, body: unknown): Fault | undefined {
  const result = envelope.safeParse(body);
  return result.success ? undefined : faultOf(result.error.issues);
}

function faultOf(issues: readonly z.core.$ZodIssue[]): Fault {
  const issue = issues[0];
  const path = (issue?.path ?? []).filter((key) => typeof key !== "symbol");
  return { path, expected: issue?.message ?? "valid" };
}

/** Renders a path the way API errors name fields: `messages[0].role`. */
function formatPath(path: FieldPath): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text === "" ? String(key) : `.${String(key)}`;
  }
  return text;
}

function valueAt(body: unknown, path: FieldPath): unknown {
  let value = body;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

// Strings are described, never quoted: they can be long or hold what a log should not.
function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}
