/**
 * A response body on a connection, as its framing delimits it: a known length, chunks,
 * or everything until the upstream closes. Each read hands out the payload of one
 * network read as bytes of its own; the connection goes back to its pool once the body
 * ended exactly where the framing says, and is closed otherwise. A body read whole is
 * bounded by `max_answer_bytes` as it is read, never after: a Content-Length over it is
 * refused before a byte is read.
 */
import { concatBytes } from "../../bytes.ts";
import type { BodyReader } from "../response.ts";
import { type ChunkedDecoder, createChunkedDecoder } from "./chunked.ts";
import { type Connection, ConnectionClosed } from "./connection.ts";
import type { Framing } from "./head.ts";
import type { StopSignal } from "../../clock/stop_signal.ts";
import { type AnswerLimits, answerTooLarge } from "./limits.ts";

/** A body reader that can also read the whole body at once. */
export interface Http1Body extends BodyReader {
  /**
   * Every byte of the body (what `read` has not taken yet); fails (the body given up) once
   * they pass `maxAnswerBytes`.
   */
  readAll(): Promise<Uint8Array>;
  readonly maxAnswerBytes: number;
}

/** Told once, when a body ended (`reusable`: exactly, its connection clean) or was given up. */
export interface BodyEnd {
  bodyEnded(reusable: boolean): void;
}

/** What `#next` says when the buffered bytes hold no payload: the connection must be read. */
const MORE = Symbol("more");

/**
 * The body after the head just read on `connection`, within `limits`. `owner` is told
 * when the body ended; once `signal` aborted, reads throw its reason.
 */
export function readBody(
  connection: Connection,
  framing: Framing,
  signal: StopSignal,
  owner: BodyEnd,
  limits: Readonly<AnswerLimits>,
): Http1Body {
  return new Body(connection, framing, signal, owner, limits);
}

/** One body's reading state, in fields: a stream holds its body as long as it runs. */
class Body implements Http1Body {
  readonly maxAnswerBytes: number;
  readonly #connection: Connection;
  readonly #framing: Framing;
  readonly #signal: StopSignal;
  readonly #owner: BodyEnd;
  readonly #chunked: ChunkedDecoder | undefined;
  /** Where a read's payload is among the chunked framing, reused from read to read. */
  readonly #ranges: number[] = [];
  /** Bytes left of a body of known length. */
  #left: number;
  #finished = false;

  constructor(
    connection: Connection,
    framing: Framing,
    signal: StopSignal,
    owner: BodyEnd,
    limits: Readonly<AnswerLimits>,
  ) {
    this.#connection = connection;
    this.#framing = framing;
    this.#signal = signal;
    this.#owner = owner;
    this.maxAnswerBytes = limits.maxAnswerBytes;
    this.#left = framing.kind === "length" ? framing.length : 0;
    this.#chunked = framing.kind === "chunked"
      ? createChunkedDecoder(undefined, limits)
      : undefined;
    if (framing.kind === "none" || (framing.kind === "length" && this.#left === 0)) {
      this.#finish(true);
    }
  }

  /**
   * The next payload bytes, undefined once the body ended. Not an async function, for
   * the reason Connection.fill is not: every open stream has a read pending.
   */
  read(): Promise<Uint8Array | undefined> {
    try {
      // Aborted: whatever is buffered is not handed out any more.
      this.#signal.throwIfAborted();
      const bytes = this.#next();
      if (bytes !== MORE) return Promise.resolve(bytes);
    } catch (error) {
      return Promise.reject(this.#failure(error));
    }
    return this.#connection.fill().then(this.#filled, this.#failed);
  }

  async readAll(): Promise<Uint8Array> {
    if (this.#framing.kind !== "length" || this.#finished) return await this.#readParts();
    try {
      this.#signal.throwIfAborted();
      // Refused before any of it is read, whatever of it came already.
      if (this.#left > this.maxAnswerBytes) throw answerTooLarge(this.maxAnswerBytes);
    } catch (error) {
      throw this.#failure(error);
    }
    return await this.#readExactly();
  }

  async #readParts(): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let size = 0;
    for (let bytes = await this.read(); bytes; bytes = await this.read()) {
      size += bytes.byteLength;
      if (size > this.maxAnswerBytes) throw this.#failure(answerTooLarge(this.maxAnswerBytes));
      parts.push(bytes);
    }
    return concatBytes(parts);
  }

  cancel(): Promise<void> {
    this.#finish(false);
    return Promise.resolve();
  }

  get ended(): boolean {
    return this.#finished;
  }

  #finish(reusable: boolean): void {
    if (this.#finished) return;
    this.#finished = true;
    const connection = this.#connection;
    this.#owner.bodyEnded(reusable && connection.start === connection.end);
  }

  /** The error a failed read throws: the abort's reason once aborted; the body is given up. */
  #failure(error: unknown): unknown {
    this.#finish(false);
    return this.#signal.aborted ? this.#signal.reason : error;
  }

  readonly #failed = (error: unknown): never => {
    throw this.#failure(error);
  };

  /** After a fill: the bytes it brought, or another read when they held no payload. */
  readonly #filled = (more: boolean): Uint8Array | undefined | Promise<Uint8Array | undefined> => {
    try {
      if (!more) {
        if (this.#framing.kind !== "close") {
          throw new ConnectionClosed("in the middle of its answer");
        }
        this.#finish(false);
        return undefined;
      }
      const bytes = this.#next();
      return bytes === MORE ? this.read() : bytes;
    } catch (error) {
      throw this.#failure(error);
    }
  };

  /** The payload bytes buffered, undefined once the body ended, MORE when a fill is needed. */
  #next(): Uint8Array | undefined | typeof MORE {
    if (this.#finished) return undefined;
    const bytes = this.#take();
    if (bytes) return bytes;
    return this.#finished ? undefined : MORE;
  }

  /** The payload among the unread bytes, copied out; undefined when they hold none. */
  #take(): Uint8Array | undefined {
    const connection = this.#connection;
    const { buffer, start, end } = connection;
    if (start === end) return undefined;
    if (this.#framing.kind === "length") {
      const count = Math.min(this.#left, end - start);
      connection.start += count;
      this.#left -= count;
      const bytes = buffer.slice(start, start + count);
      if (this.#left === 0) this.#finish(true);
      return bytes;
    }
    if (this.#chunked) {
      const ranges = this.#ranges;
      ranges.length = 0;
      const ended = this.#chunked.decode(buffer, start, end, ranges);
      connection.start = ended < 0 ? end : ended;
      const bytes = copyRanges(buffer, ranges);
      if (ended >= 0) this.#finish(true);
      return bytes;
    }
    connection.start = end;
    return buffer.slice(start, end);
  }

  /**
   * A body of known length, read straight into bytes of its size: no copy per read. What
   * came with the head is copied out before the body ends, as its end gives the connection
   * back, to read into its buffer.
   */
  async #readExactly(): Promise<Uint8Array> {
    const connection = this.#connection;
    const body = new Uint8Array(this.#left);
    let filled = 0;
    try {
      const buffered = Math.min(this.#left, connection.end - connection.start);
      body.set(connection.buffer.subarray(connection.start, connection.start + buffered));
      connection.start += buffered;
      filled = buffered;
      while (filled < body.byteLength) {
        const count = await connection.readInto(body.subarray(filled));
        if (count === null) throw new ConnectionClosed("in the middle of its answer");
        filled += count;
      }
    } catch (error) {
      throw this.#failure(error);
    }
    this.#left = 0;
    this.#finish(true);
    return body;
  }
}

/**
 * The bytes of `buffer` in `ranges` (pairs of start and end) as one array of their own;
 * undefined if there are none. The ranges after the first are moved down to follow it
 * (the chunk framing between them is read already), so there is one copy and no view.
 */
function copyRanges(buffer: Uint8Array, ranges: number[]): Uint8Array | undefined {
  if (ranges.length === 0) return undefined;
  const from = ranges[0]!;
  let to = ranges[1]!;
  for (let i = 2; i < ranges.length; i += 2) {
    buffer.copyWithin(to, ranges[i]!, ranges[i + 1]!);
    to += ranges[i + 1]! - ranges[i]!;
  }
  return buffer.slice(from, to);
}
