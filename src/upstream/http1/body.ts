/**
 * A response body on a connection, as its framing delimits it: a known length, chunks,
 * or everything until the upstream closes. Each read hands out the payload of one
 * network read as bytes of its own; the connection goes back to its pool once the body
 * ended exactly where the framing says, and is closed otherwise.
 */
import type { BodyReader } from "../response.ts";
import { createChunkedDecoder } from "./chunked.ts";
import { type Connection, ConnectionClosed } from "./connection.ts";
import type { Framing } from "./head.ts";

/** A body reader that can also read the whole body at once. */
export interface Http1Body extends BodyReader {
  /** Every byte of the body (what `read` has not taken yet). */
  readAll(): Promise<Uint8Array>;
}

const EMPTY = new Uint8Array(0);

/**
 * The body after the head just read on `connection`. `done` is told once, when the body
 * ended (`reusable`: exactly, on a connection that may carry another request) or was
 * given up; `signal`'s reason is what a read throws once it aborted.
 */
export function readBody(
  connection: Connection,
  framing: Framing,
  signal: AbortSignal,
  done: (reusable: boolean) => void,
): Http1Body {
  let finished = false;
  const finish = (reusable: boolean) => {
    if (finished) return;
    finished = true;
    done(reusable && connection.start === connection.end);
  };
  let left = framing.kind === "length" ? framing.length : 0;
  const chunked = framing.kind === "chunked" ? createChunkedDecoder() : undefined;
  if (framing.kind === "none" || (framing.kind === "length" && left === 0)) finish(true);

  // The payload among the unread bytes, copied out; undefined when they hold none.
  const take = (): Uint8Array | undefined => {
    const { buffer, start, end } = connection;
    if (start === end) return undefined;
    if (framing.kind === "length") {
      const count = Math.min(left, end - start);
      connection.start += count;
      left -= count;
      const bytes = buffer.slice(start, start + count);
      if (left === 0) finish(true);
      return bytes;
    }
    if (chunked) {
      const parts: Uint8Array[] = [];
      const ended = chunked.decode(buffer, start, end, parts);
      connection.start = ended < 0 ? end : ended;
      const bytes = concat(parts);
      if (ended >= 0) finish(true);
      return bytes.byteLength > 0 ? bytes : undefined;
    }
    connection.start = end;
    return buffer.slice(start, end);
  };

  const fail = (error: unknown): never => {
    finish(false);
    throw signal.aborted ? signal.reason : error;
  };

  const read = async (): Promise<Uint8Array | undefined> => {
    try {
      for (;;) {
        if (finished) return undefined;
        const bytes = take();
        if (bytes) return bytes;
        if (finished) return undefined;
        if (!(await connection.fill())) {
          if (framing.kind !== "close") throw new ConnectionClosed("in the middle of its answer");
          finish(false);
          return undefined;
        }
      }
    } catch (error) {
      return fail(error);
    }
  };

  return {
    read,
    async readAll() {
      if (framing.kind === "length" && !finished) return await readExactly();
      const parts: Uint8Array[] = [];
      for (let bytes = await read(); bytes; bytes = await read()) parts.push(bytes);
      return concat(parts);
    },
    cancel() {
      finish(false);
      return Promise.resolve();
    },
  };

  // A body of known length is read straight into bytes of its size: no copy per read.
  async function readExactly(): Promise<Uint8Array> {
    const body = new Uint8Array(left);
    let filled = 0;
    try {
      const buffered = Math.min(left, connection.end - connection.start);
      body.set(connection.buffer.subarray(connection.start, connection.start + buffered));
      connection.start += buffered;
      filled = buffered;
      while (filled < body.byteLength) {
        const count = await connection.readInto(body.subarray(filled));
        if (count === null) throw new ConnectionClosed("in the middle of its answer");
        filled += count;
      }
    } catch (error) {
      return fail(error);
    }
    left = 0;
    finish(true);
    return body;
  }
}

/** The parts as one array (the part itself when there is one). */
function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 0) return EMPTY;
  if (parts.length === 1) return parts[0]!.slice();
  let size = 0;
  for (const part of parts) size += part.byteLength;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
}
