/** The read buffer of an HTTP/1.1 connection, either side's: bytes read and not yet taken. */

/** Bytes read and not yet taken are `buffer[start, end)`. */
export interface ReadBuffer {
  buffer: Uint8Array;
  start: number;
  end: number;
}

/**
 * Makes room for the next read after the unread bytes: back to the buffer's start when
 * all was taken; when the buffer is full, its unread bytes moved to its start, or into a
 * buffer twice its size. False when that would take a buffer past `maxBytes` (a head too
 * large for the connection to take).
 */
export function makeRoom(read: ReadBuffer, maxBytes: number): boolean {
  let { buffer } = read;
  if (read.start === read.end) {
    read.start = read.end = 0;
    return true;
  }
  if (read.end < buffer.byteLength) return true;
  const unread = read.end - read.start;
  if (unread * 2 > buffer.byteLength) {
    if (buffer.byteLength >= maxBytes) return false;
    buffer = new Uint8Array(buffer.byteLength * 2);
  }
  buffer.set(read.buffer.subarray(read.start, read.end));
  read.buffer = buffer;
  read.start = 0;
  read.end = unread;
  return true;
}

/**
 * Back to a buffer of `size` once a large head was read, keeping what followed it; not
 * when that is more than `size`, or the buffer is that size already.
 */
export function shrinkTo(read: ReadBuffer, size: number): void {
  const unread = read.end - read.start;
  if (read.buffer.byteLength === size || unread > size) return;
  const buffer = new Uint8Array(size);
  buffer.set(read.buffer.subarray(read.start, read.end));
  read.buffer = buffer;
  read.start = 0;
  read.end = unread;
}
