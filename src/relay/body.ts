/** Reads a client's JSON body under the size limit. */
import { GatewayError } from "../errors.ts";

/** A client body: the parsed JSON and its size in bytes. */
export interface JsonBody {
  value: unknown;
  bytes: number;
}

/** The parsed JSON body; 413 past `maxBytes`, 400 `bad_request_body` if it is not JSON. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<JsonBody> {
  const declared = declaredBodySize(request);
  if (declared > maxBytes) throw bodyTooLarge(maxBytes);
  if (!request.body) throw badBody("the body is empty");
  // With a declared size within the limit the runtime collects the body in one call;
  // without one (chunked) the limit is enforced while reading.
  const bytes = Number.isFinite(declared)
    ? new Uint8Array(await request.arrayBuffer())
    : await readLimited(request.body, maxBytes);
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === "") throw badBody("the body is empty");
  try {
    return { value: JSON.parse(text), bytes: bytes.byteLength };
  } catch (error) {
    throw badBody(error instanceof SyntaxError ? error.message : "it does not parse");
  }
}

async function readLimited(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw bodyTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
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

function badBody(why: string): GatewayError {
  return new GatewayError(
    400,
    "bad_request_body",
    `Request body is not valid JSON: ${why}. Send a JSON object with Content-Type: application/json.`,
  );
}
