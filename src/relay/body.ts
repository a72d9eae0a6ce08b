/**
 * Reads a client's JSON body under the size limit. The body is read chunk by chunk,
 * so one over the limit is refused once the limit is passed (never held whole), and a
 * body cut short (shorter than its Content-Length, or its connection closed mid-way)
 * or not UTF-8 is the client's 400, not a gateway failure.
 */
import { concatBytes } from "../bytes.ts";
import { GatewayError } from "../errors.ts";

/** A client body: the parsed JSON, its size in bytes, and the bytes as they came. */
export interface JsonBody {
  value: unknown;
  bytes: number;
  /** What a same-protocol relay forwards when nothing in it must change. */
  raw: Uint8Array;
}

/** Decodes a whole body; refuses what is not UTF-8. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The parsed JSON body; 413 past `maxBytes`, 400 `bad_request_body` for anything not JSON. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<JsonBody> {
  const declared = declaredBodySize(request);
  if (declared > maxBytes) throw bodyTooLarge(maxBytes);
  // A declared size is all the runtime reads (it frames the body): one bulk read then.
  // Without one (chunked), the body is read chunk by chunk and refused past the limit.
  const bytes = declared >= 0
    ? await readWhole(request)
    : await readLimited(request.body, maxBytes);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw badBody("it is not valid UTF-8");
  }
  if (text.trim() === "") throw badBody("the body is empty");
  try {
    return { value: JSON.parse(text), bytes: bytes.byteLength, raw: bytes };
  } catch (error) {
    throw badBody(error instanceof SyntaxError ? error.message : "it does not parse");
  }
}

async function readWhole(request: Request): Promise<Uint8Array> {
  try {
    return new Uint8Array(await request.arrayBuffer());
  } catch (error) {
    throw incomplete(error);
  }
}

async function readLimited(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch (error) {
      throw incomplete(error);
    }
    if (step.done) break;
    size += step.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw bodyTooLarge(maxBytes);
    }
    chunks.push(step.value);
  }
  return concatBytes(chunks);
}

/** The 413 for a body over the limit. */
export function bodyTooLarge(maxBytes: number): GatewayError {
  return new GatewayError(
    413,
    "request_too_large",
    `Request body is too large: the limit is ${maxBytes} bytes. Shorten the conversation or ask the operator to raise server.max_body_bytes.`,
  );
}

/** The size a request declares in Content-Length, or NaN. */
export function declaredBodySize(request: Request): number {
  return Number(request.headers.get("content-length") ?? NaN);
}

function incomplete(cause: unknown): GatewayError {
  return new GatewayError(
    400,
    "bad_request_body",
    "Request body is incomplete: the connection ended before the whole body arrived " +
      "(shorter than its Content-Length, or closed mid-way). Send the whole body again.",
    { cause },
  );
}

function badBody(why: string): GatewayError {
  return new GatewayError(
    400,
    "bad_request_body",
    `Request body is not valid JSON: ${why}. Send a JSON object with Content-Type: application/json.`,
  );
}
