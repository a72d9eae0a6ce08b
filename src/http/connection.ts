/**
 * A client's connection: its socket and the bytes read from it but not yet taken
 * (`buffer[start, end)`). At most one read is in flight at a time, and whoever waits
 * next takes its result: while an answer is written the connection keeps reading, so
 * that it notices a client that went away, and those bytes (a pipelined request) stay
 * buffered for the next request.
 */
import type { ByteSlab } from "../upstream/http1/byte_slab.ts";
import { closeQuietly } from "../upstream/http1/connection.ts";
import {
  makeRoom,
  type ReadBuffer,
  shrinkTo,
  takeBuffered,
} from "../upstream/http1/read_buffer.ts";
import { writeAll } from "../upstream/http1/write_all.ts";
import { BadRequest } from "./request_head.ts";

/** Bytes read at a time: requests' heads are small, and every open connection keeps one. */
export const READ_BUFFER_BYTES = 4_096;

/** Bytes a request head may take (RFC 9110 leaves it to the server; 64 KiB as hyper's). */
export const MAX_HEAD_BYTES = 65_536;

/** The refusal of a head over MAX_HEAD_BYTES. */
export function headTooLarge(): BadRequest {
  return new BadRequest(431, `The request head is larger than ${MAX_HEAD_BYTES} bytes.`);
}

/** One client connection. A class, not closures: thousands may be open at once. */
export class ClientConnection implements ReadBuffer {
  buffer: Uint8Array = new Uint8Array(READ_BUFFER_BYTES);
  start = 0;
  end = 0;
  /** The client closed its side (or the socket failed): nothing more will be read. */
  ended = false;
  /** The socket was closed, or a write to it failed: nothing more can be written. */
  broken = false;
  readonly remoteAddr: string;
  readonly #socket: Deno.Conn;
  /** The read in flight, if any; resolves to whether it brought bytes. */
  #reading: Promise<boolean> | undefined;

  /** Where the bodies taken whole from the buffer are copied to (the server's, shared). */
  readonly #slab: ByteSlab;

  constructor(socket: Deno.Conn, slab: ByteSlab) {
    this.#socket = socket;
    this.#slab = slab;
    this.remoteAddr = (socket.remoteAddr as Deno.NetAddr).hostname ?? "";
  }

  /** Whether bytes are buffered that no request has taken yet. */
  get buffered(): boolean {
    return this.start < this.end;
  }

  /**
   * More bytes into the buffer (after those unread): false once the client's side ended.
   * The read in flight, when there is one, is this read. Not an async function: an open
   * connection always has a read pending, and a bound `then` holds less than a suspended call.
   */
  fill(): Promise<boolean> {
    if (this.#reading) return this.#reading;
    if (this.ended) return Promise.resolve(false);
    if (!makeRoom(this, MAX_HEAD_BYTES)) return Promise.reject(headTooLarge());
    const { buffer } = this;
    const into = this.end === 0 ? buffer : buffer.subarray(this.end);
    return this.#reading = this.#socket.read(into).then(this.#filled, this.#failed);
  }

  readonly #filled = (count: number | null): boolean => {
    this.#reading = undefined;
    if (count === null) {
      this.ended = true;
      return false;
    }
    this.end += count;
    return true;
  };

  readonly #failed = (): boolean => {
    this.#reading = undefined;
    this.ended = true;
    return false;
  };

  /** The next `length` bytes as an array of their own, when all of them are buffered. */
  takeBuffered(length: number): Uint8Array | undefined {
    return takeBuffered(this, length, this.#slab);
  }

  /**
   * Bytes into `into` (a body of known length): buffered ones first, then straight from
   * the socket without a copy; 0 once the client's side ended.
   */
  async readInto(into: Uint8Array): Promise<number> {
    // A read in flight reads into the buffer: its bytes come first.
    if (!this.buffered && this.#reading) await this.#reading;
    if (this.buffered) {
      const count = Math.min(into.byteLength, this.end - this.start);
      into.set(this.buffer.subarray(this.start, this.start + count));
      this.start += count;
      return count;
    }
    if (this.ended) return 0;
    try {
      const count = await this.#socket.read(into);
      if (count === null) this.ended = true;
      return count ?? 0;
    } catch {
      this.ended = true;
      return 0;
    }
  }

  /**
   * Writes all of `bytes`; rejects, and marks the connection broken, if the client is
   * gone. Not an async function: a stream writes once a chunk, nearly always whole.
   */
  write(bytes: Uint8Array): Promise<void> {
    return writeAll(this.#socket, bytes, this.#writeFailed);
  }

  readonly #writeFailed = (error: unknown): never => {
    this.broken = true;
    throw error;
  };

  /** Ends the writing side (the client reads to the end), keeping the reading side open. */
  closeWrite(): void {
    try {
      (this.#socket as Deno.TcpConn).closeWrite();
    } catch {
      this.broken = true;
    }
  }

  close(): void {
    this.broken = true;
    this.ended = true;
    closeQuietly(this.#socket);
  }

  /** Back to the usual buffer once a large head was read (not while a read fills it). */
  shrink(): void {
    if (!this.#reading) shrinkTo(this, READ_BUFFER_BYTES);
  }
}
