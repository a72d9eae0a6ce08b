/**
 * Copies of small byte ranges (a request's body, an answer's body) cut one after another
 * from a shared slab, as Node's pool for small Buffers does. An array of over 64 bytes has
 * memory of its own outside V8's heap, which the runtime allocates, zeroes and later frees
 * on another thread: copying a 277-byte body out of a connection's buffer cost ~2.5 µs in
 * place, a cut of the slab ~1.1 (bench/README.md). Nothing is given back: a slab is freed
 * by the garbage collector once no cut of it is left, so a cut kept long keeps its slab.
 */

/** Bytes of each slab. */
export const SLAB_BYTES = 16 * 1024;
/** Copies larger than this get an array of their own (their allocation is small beside them). */
export const MAX_CUT_BYTES = 2 * 1024;

/** Where small copies are cut from: one per server or client, shared by its connections. */
export class ByteSlab {
  #slab = new Uint8Array(0);
  #used = 0;

  /** A copy of `source[start, end)` that nothing else writes: a cut of the slab when small. */
  copy(source: Uint8Array, start: number, end: number): Uint8Array<ArrayBuffer> {
    const length = end - start;
    if (length > MAX_CUT_BYTES) return source.slice(start, end);
    if (this.#used + length > this.#slab.byteLength) {
      this.#slab = new Uint8Array(SLAB_BYTES);
      this.#used = 0;
    }
    const cut = this.#slab.subarray(this.#used, this.#used + length);
    cut.set(source.subarray(start, end));
    this.#used += length;
    return cut;
  }
}
