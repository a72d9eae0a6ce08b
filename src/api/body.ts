/**
 * Reads a client's JSON body under the size limit and the body deadline. A body declared
 * over the limit is refused before a byte of it is read; one that grows past it is refused
 * as soon as it does, never held whole. Bytes are read into one buffer of their own (a BYOB
 * reader): a body sent a byte at a time costs its size, not a buffer a read. A body cut
 * short, or not UTF-8, is the client's 400, not a gateway failure; one that has not come by
 * `[timeouts] body` is 408.
 *
 * Hono's `bodyLimit` and the runtime's `arrayBuffer()` do not do this job on Deno.serve:
 * the first leaves the body's stream locked and unfinished when it refuses (the runtime then
 * holds the connection for it), the second has no size limit and cannot be stopped by a
 * deadline, and both read a chunked body through reads of the runtime's default size, which
 * a trailer section larger than one read stalls (below).
 */
import type { MiddlewareHandler } from "hono";
import type { AlarmClock, Ringing } from "../clock/alarm_clock.ts";
import type { Config } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import type { GatewayEnv } from "./request_context.ts";

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

/** The limits of a config: `[server] max_body_bytes` and `[timeouts] body`. */
export function bodyLimits(config: Config): BodyLimits {
  return { maxBytes: config.server.max_body_bytes, timeoutMs: config.timeouts.body };
}

/**
 * The body limit, before authentication (design.md's flow): 413 for a body declared over
 * `[server] max_body_bytes`, before a byte of it is read. One that grows past it is
 * refused as it is read (`readBody`).
 */
export function bodyLimit(): MiddlewareHandler<GatewayEnv> {
  return function bodyLimit(c, next) {
    const limit = c.get("snapshot").config.server.max_body_bytes;
    if (declaredLength(c.req.header("content-length") ?? null) > limit) {
      throw bodyTooLarge(limit);
    }
    return next();
  };
}

/** The parsed JSON body: 413 past `maxBytes`, 408 past the deadline, 400 for anything not JSON. */
export async function readJsonBody(
  request: Request,
  limits: BodyLimits,
  clock: AlarmClock,
): Promise<JsonBody> {
  return parseJsonBody(await readBody(request, limits, clock));
}

/** The body's bytes under `limits` (its deadline an alarm of `clock`), or the client's error. */
export async function readBody(
  request: Request,
  limits: BodyLimits,
  clock: AlarmClock,
): Promise<Uint8Array> {
  const declared = declaredLength(request.headers.get("content-length"));
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
    throw error instanceof GatewayError ? error : unreadable(error);
  } finally {
    deadline.cancel();
  }
}

/** The Content-Length's value (the runtime's server has checked its form), -1 when absent. */
function declaredLength(value: string | null): number {
  return value === null ? -1 : Number(value);
}

/**
 * The most each read asks of the runtime, and the room each read of a chunked body offers
 * it. Deno's HTTP/1.1 server (its own parser, not hyper) decodes at most a read's length of
 * the wire at a time: a read shorter than the next chunk's size line never resolves, and its
 * bound on a trailer section is checked only within one read, so trailers longer than every
 * read are neither finished nor refused while the runtime buffers all of them. So a read
 * holds the longest size line the runtime accepts, and the runtime's whole trailer bound
 * with room for the line that passes it. Larger reads were slower for a body of many tiny
 * chunks (bench/README.md): the runtime's reader moves what it buffered once a chunk.
 */
const READ_BYTES = 72 * 1024;

/**
 * Reads a body into one buffer of its own, always to its end: the runtime gives the
 * connection back (to the next request pipelined on it) only once the body's reader is
 * done with it. A body with a Content-Length nearly always comes whole in the first read,
 * taken as it is; the rest is read with a BYOB reader straight into the buffer (when the
 * runtime's stream is a byte stream, i.e. the body was not all buffered when it was asked
 * for), so that a body sent in many small pieces costs its size, not a buffer a piece.
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
    if (this.#declared >= 0) {
      const reader = this.#reader = this.#stream.getReader();
      const first = await reader.read();
      if (first.done || this.expired) return new Uint8Array(0);
      if (first.value.byteLength === this.#declared) {
        // All of it came at once (the runtime holds a body to its Content-Length): the
        // next read only says so, at once.
        await reader.read();
        return first.value;
      }
      // One byte past the declared length: the reads end there.
      this.#buffer = new ArrayBuffer(Math.max(this.#declared + 1, first.value.byteLength));
      this.#append(first.value);
      reader.releaseLock();
    }
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
    // A declared body's buffer ends one byte past it; a chunked one keeps a read's room.
    const room = this.#declared >= 0 ? 1 : READ_BYTES;
    while (!this.expired) {
      if (this.#buffer.byteLength - this.#filled < room) this.#grow(this.#filled + room);
      const view = new Uint8Array(
        this.#buffer,
        this.#filled,
        Math.min(this.#buffer.byteLength - this.#filled, READ_BYTES),
      );
      const { value, done } = await byob.read(view);
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
    if (this.#buffer.byteLength - this.#filled < bytes.byteLength) {
      this.#grow(this.#filled + bytes.byteLength);
    }
    new Uint8Array(this.#buffer, this.#filled).set(bytes);
    this.#filled += bytes.byteLength;
    this.#checkSize();
  }

  /** A buffer of at least `size` bytes (doubling), holding what was read. */
  #grow(size: number): void {
    const grown = new ArrayBuffer(Math.max(size, this.#buffer.byteLength * 2, 1024));
    new Uint8Array(grown).set(new Uint8Array(this.#buffer, 0, this.#filled));
    this.#buffer = grown;
  }

  #checkSize(): void {
    if (this.#filled > this.#maxBytes) throw bodyTooLarge(this.#maxBytes);
  }
}

/** A whole body's bytes as JSON: 400 for anything not UTF-8 JSON (an empty body included). */
export function parseJsonBody(bytes: Uint8Array): JsonBody {
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

/** The 400 for a body the runtime's server could not read: cut short, or not well framed. */
function unreadable(cause: unknown): GatewayError {
  // The runtime fails a read with BadResource once the connection is gone; anything else
  // is its parser refusing what came.
  const cut = cause instanceof Deno.errors.BadResource ||
    cause instanceof Deno.errors.UnexpectedEof;
  return new GatewayError(
    400,
    "bad_request_body",
    cut
      ? "Request body is incomplete: the connection ended before the whole body arrived " +
        "(shorter than its Content-Length, or closed mid-way). Send the whole body again."
      : "Request body could not be read: its chunked framing is malformed, or its trailer " +
        "fields are malformed or larger than the server's 64 KiB. Send the body with a " +
        "Content-Length, or as well-formed chunks without large trailers.",
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
