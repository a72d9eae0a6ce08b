/** Byte arrays joined: what every body read in parts ends with. */

const EMPTY = new Uint8Array(0);

/** The parts as one array: the part itself when there is one (parts are their reader's own). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 0) return EMPTY;
  if (parts.length === 1) return parts[0]!;
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
