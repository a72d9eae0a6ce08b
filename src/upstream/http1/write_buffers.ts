/**
 * Arrays for the bytes of one write, reused from write to write. An array of over 64 bytes
 * has memory of its own outside V8's heap, which the runtime allocates, zeroes and later
 * frees on another thread: a socket write of 600 fresh bytes costs 3.9 µs on this host, of
 * bytes written before 2.4 (bench/README.md). A request writes twice (the upstream request,
 * the answer), each head and body joined in one array.
 */

/** Bytes of each array kept; a write larger than this gets an array of its own. */
export const WRITE_BUFFER_BYTES = 16 * 1024;
/** Arrays kept while no write uses them. */
const KEPT = 16;

/** Where the bytes of a write come from: `length` of them to fill. */
export type TakeBytes = (length: number) => Uint8Array;

/** Bytes of their own, for a write made without a pool. */
export const freshBytes: TakeBytes = (length) => new Uint8Array(length);

const ENCODER = new TextEncoder();

/**
 * A head and its body as one array, for one write (a request to an upstream, a whole answer
 * to a client). The head is ASCII (tollgate's own text or checked fields), so its length is
 * its size. `take` gives the array, a new one unless given.
 */
export function headAndBody(
  head: string,
  body: Uint8Array,
  take: TakeBytes = freshBytes,
): Uint8Array {
  const bytes = take(head.length + body.byteLength);
  ENCODER.encodeInto(head, bytes);
  bytes.set(body, head.length);
  return bytes;
}

/** A pool of write arrays: `take` one, write it, `give` it back once the write ended. */
export class WriteBuffers {
  readonly #free: ArrayBuffer[] = [];

  /** `length` bytes to fill and write: a kept array's when they fit one. Bound: pass it on. */
  readonly take: TakeBytes = (length) => {
    if (length > WRITE_BUFFER_BYTES) return new Uint8Array(length);
    const free = this.#free.pop() ?? new ArrayBuffer(WRITE_BUFFER_BYTES);
    return new Uint8Array(free, 0, length);
  };

  /**
   * Gives back bytes that `take` returned, once nothing reads them any more (their write
   * ended, whether it failed or not). Bytes given twice are kept once.
   */
  give(bytes: Uint8Array): void {
    const { buffer } = bytes;
    if (!(buffer instanceof ArrayBuffer) || buffer.byteLength !== WRITE_BUFFER_BYTES) return;
    if (this.#free.length < KEPT && !this.#free.includes(buffer)) this.#free.push(buffer);
  }
}
