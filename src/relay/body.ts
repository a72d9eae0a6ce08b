/**
 * Reads a client's JSON body under the size limit and the body deadline. A body declared
 * over the limit is refused before a byte of it is read (the runtime then sends no
 * `100 Continue`); one that grows past it is refused as soon as it does, never held
 * whole. Bytes are read into one buffer of their own (a BYOB reader): a body sent a byte
 * at a time costs its size, not a buffer a read. A body cut short, or not UTF-8, is the
 * client's 400, not a gateway failure; one that has not come by `[timeouts] body` is 408.
 */
import { GatewayError } from "../errors.ts";
import type { AlarmClock, Ringing } from "../upstream/alarm_clock.ts";

/** A client body: the parsed JSON, its size in bytes, and the bytes as they came. */
export interface JsonBody {
  value: unknown;
  bytes: number;
  /** What a same-protocol relay forwards when nothing in it must change. */
  raw: Uint8Array;
}

/** The limits a client's body is read under. */
export interface BodyLimits {
  maxBytes: number;
  /** The whole body must have arrived this many milliseconds after the request did. */
  timeoutMs: number;
}

/** Decodes a whole body, replacing what is not UTF-8 with U+FFFD: the runtime's fast path. */
const UTF8 = new TextDecoder();
/** Refuses what is not UTF-8; slower, so asked only of a body whose fast decoding holds a U+FFFD. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** A client's request as the body reader reads it: its body and its header fields. */
export interface ClientBody {
  request: Request;
  headers: ReadonlyMap<string, string>;
}

/** The parsed JSON body: 413 past `maxBytes`, 408 past the deadline, 400 for anything not JSON. */
export async function readJsonBody(
  client: ClientBody,
  limits: BodyLimits,
  clock: AlarmClock,
): Promise<JsonBody> {
  return parseJsonBody(await readBody(client, limits, clock));
}

/** The body's bytes under `limits` (its deadline an alarm of `clock`), or the client's error. */
export async function readBody(
  { request, headers }: ClientBody,
  limits: BodyLimits,
  clock: AlarmClock,
): Promise<Uint8Array> {
  const declared = declaredLength(headers.get("content-length"));
  if (declared > limits.maxBytes) throw bodyTooLarge(limits.maxBytes);
  if (!request.body || declared === 0) return new Uint8Array(0);
  const reader = new BodyReader(request.body, declared, limits.maxBytes);
  const deadline = clock.alarm(reader);
  deadline.set(clock.now() + limits.timeoutMs);
  try {
    const bytes = await reader.read();
    if (reader.expired) throw bodyTimeout(limits.timeoutMs);
    return bytes;
  } catch (error) {
    reader.cancel();
    if (reader.expired) throw bodyTimeout(limits.timeoutMs);
    throw error instanceof GatewayError ? error : incomplete(error);
  } finally {
    deadline.cancel();
  }
}

/** The Content-Length's value (the runtime's server has checked its form), -1 when absent. */
function declaredLength(value: string | undefined): number {
  return value === undefined ? -1 : Number(value);
}

/**
 * Reads a body into one buffer of its own. The first read takes what came with the head,
 * which is nearly always the whole body; the rest is read with a BYOB reader straight into
 * the buffer (when the runtime's stream is a byte stream), so that a body sent in many
 * small pieces costs its size, not a buffer a piece.
 */
class BodyReader implements Ringing {
  readonly #stream: ReadableStream<Uint8Array>;
  readonly #declared: number;
  readonly #maxBytes: number;
  #buffer = new ArrayBuffer(0);
  #filled = 0;
  #reader: ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** Set when the body's deadline rang: the read in flight was cancelled. */
  expired = false;

  constructor(stream: ReadableStream<Uint8Array>, declared: number, maxBytes: number) {
    this.#stream = stream;
    this.#declared = declared;
    this.#maxBytes = maxBytes;
  }

  async read(): Promise<Uint8Array> {
    const reader = this.#reader = this.#stream.getReader();
    const first = await reader.read();
    if (first.done || this.expired) return new Uint8Array(0);
    // The runtime's server holds a body to its Content-Length: all of it came at once.
    if (first.value.byteLength === this.#declared) return first.value;
    // One byte past a declared length, or room to grow for a chunked one.
    const size = this.#declared >= 0 ? this.#declared + 1 : Math.min(this.#maxBytes + 1, 65_536);
    this.#buffer = new ArrayBuffer(Math.max(size, first.value.byteLength));
    this.#append(first.value);
    reader.releaseLock();
    let byob: ReadableStreamBYOBReader | undefined;
    try {
      byob = this.#stream.getReader({ mode: "byob" });
    } catch {
      // Not a byte stream: the runtime made it from bytes it already holds.
    }
    if (byob) await this.#readInto(byob);
    else await this.#readChunks(this.#reader = this.#stream.getReader());
    return new Uint8Array(this.#buffer, 0, this.#filled);
  }

  /** The deadline rang: the read in flight ends, and the body is refused. */
  ring(): void {
    this.expired = true;
    this.cancel();
  }

  cancel(): void {
    this.#reader?.cancel().catch(() => {});
  }

  async #readInto(byob: ReadableStreamBYOBReader): Promise<void> {
    this.#reader = byob;
    while (!this.expired) {
      if (this.#filled === this.#buffer.byteLength) this.#grow();
      const { value, done } = await byob.read(new Uint8Array(this.#buffer, this.#filled));
      if (value) this.#buffer = value.buffer as ArrayBuffer;
      if (done) return;
      this.#filled += value.byteLength;
      this.#checkSize();
    }
  }

  async #readChunks(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    while (!this.expired) {
      const { value, done } = await reader.read();
      if (done) return;
      this.#append(value);
    }
  }

  #append(bytes: Uint8Array): void {
    while (this.#buffer.byteLength - this.#filled < bytes.byteLength) this.#grow();
    new Uint8Array(this.#buffer, this.#filled).set(bytes);
    this.#filled += bytes.byteLength;
    this.#checkSize();
  }

  #grow(): void {
    const size = Math.min(Math.max(this.#buffer.byteLength * 2, 1024), this.#maxBytes + 1);
    if (size <= this.#buffer.byteLength) throw bodyTooLarge(this.#maxBytes);
    const grown = new ArrayBuffer(size);
    new Uint8Array(grown).set(new Uint8Array(this.#buffer, 0, this.#filled));
    this.#buffer = grown;
  }

  #checkSize(): void {
    if (this.#filled > this.#maxBytes) throw bodyTooLarge(this.#maxBytes);
  }
}

function parseJsonBody(bytes: Uint8Array): JsonBody {
  let text = UTF8.decode(bytes);
  if (text.includes("\uFFFD")) {
    try {
      text = STRICT_UTF8.decode(bytes);
    } catch {
      throw badBody("it is not valid UTF-8");
    }
  }
  if (text.trim() === "") throw badBody("the body is empty");
  try {
    return { value: JSON.parse(text), bytes: bytes.byteLength, raw: bytes };
  } catch (error) {
    throw badBody(error instanceof SyntaxError ? error.message : "it does not parse");
  }
}

/** The 413 for a body over the limit. */
export function bodyTooLarge(maxBytes: number): GatewayError {
  return new GatewayError(
    413,
    "request_too_large",
    `Request body is too large: the limit is ${maxBytes} bytes ([server] max_body_bytes). Shorten the conversation or ask the operator to raise server.max_body_bytes.`,
  );
}

function bodyTimeout(timeoutMs: number): GatewayError {
  return new GatewayError(
    408,
    "request_timeout",
    `Request body did not arrive within ${timeoutMs} ms ([timeouts] body). Send the whole body at once, or ask the operator to raise timeouts.body.`,
    { messagesType: "invalid_request_error" },
  );
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
