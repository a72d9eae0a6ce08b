/**
 * Parsing an entry-point request body: validate only what the gateway needs, keep the
 * client's object as it came so unknown fields reach the upstream untouched. Each
 * protocol's `parseRequest` is built from these helpers.
 */
import type { EntryProtocol } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { type FieldPath, firstFault, type RequestFields } from "./schema_fields.ts";
import type { EntryRequest } from "./types.ts";

/** The parsed request, with `maxOutputTokens` only when the client set one. */
export function entryRequest(
  protocol: EntryProtocol,
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

/** The body as an object; a 400 `invalid_request` for arrays, strings and other JSON. */
export function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    return body as Record<string, unknown>;
  }
  throw new GatewayError(
    400,
    "invalid_request",
    `Invalid request: the body must be a JSON object, got ${describeValue(body)}.`,
  );
}

/** `body` as a `T` when `fields` accept it; else a 400 naming the first field at fault. */
export function validate<T extends Record<string, unknown>>(
  fields: RequestFields,
  body: Record<string, unknown>,
): T {
  const fault = firstFault(body, fields);
  if (fault === undefined) return body as T;
  // The first fault is enough: the client fixes one field at a time, as with the real APIs.
  const param = formatPath(fault.path);
  const value = valueAt(body, fault.path);
  const message = value === undefined
    ? `Invalid request: \`${param}\` is required and must be ${fault.expected}.`
    : `Invalid request: \`${param}\` must be ${fault.expected}, got ${describeValue(value)}.`;
  throw new GatewayError(400, "invalid_request", message, { param });
}

/** Renders a path the way API errors name fields: `messages[0].role`. */
function formatPath(path: FieldPath): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text === "" ? String(key) : `.${String(key)}`;
  }
  return text || "body";
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
