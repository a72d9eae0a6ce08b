/**
 * `Transfer-Encoding: chunked` (RFC 9112 §7.1), decoded as the bytes arrive: network
 * reads split the framing anywhere, so the decoder keeps its place between calls and
 * tells where the payload is in the input (ranges, not views: no object per chunk).
 */
import { MalformedResponse } from "./head.ts";

/** Decodes one chunked body. */
export interface ChunkedDecoder {
  /**
   * Pushes where the payload in `input[start, end)` is onto `ranges`, as pairs of start
   * and end indexes; returns the index just after the body's last byte once it ended,
   * else -1 (more is needed).
   */
  decode(input: Uint8Array, start: number, end: number, ranges: number[]): number;
}

const CR = 13;
const LF = 10;
/** Hex digits of a chunk size: 2^52 bytes is beyond any answer and exact as a number. */
const MAX_SIZE_DIGITS = 13;

// Where the decoder is in the framing.
const State = {
  Size: 0,
  Extension: 1,
  SizeLf: 2,
  Data: 3,
  DataCr: 4,
  DataLf: 5,
  TrailerStart: 6,
  TrailerLine: 7,
  EndLf: 8,
  Done: 9,
} as const;
type State = typeof State[keyof typeof State];

/**
 * A decoder at the start of a chunked body; `malformed` makes the error a framing fault
 * throws (an upstream's answer by default; the server reads clients' bodies with it too).
 */
export function createChunkedDecoder(
  malformed: (why: string) => Error = (why) => new MalformedResponse(why),
): ChunkedDecoder {
  let state: State = State.Size;
  let size = 0;
  let digits = 0;
  let remaining = 0;
  // A line ends with CRLF; a bare LF is accepted too, as RFC 9112 §2.2 allows.
  const endSizeLine = () => {
    if (digits === 0) throw malformed("a chunk size is missing");
    state = size === 0 ? State.TrailerStart : State.Data;
    remaining = size;
    size = 0;
    digits = 0;
  };
  return {
    decode(input, start, end, ranges) {
      let i = start;
      while (i < end) {
        if (state === State.Data) {
          const take = Math.min(remaining, end - i);
          ranges.push(i, i + take);
          i += take;
          remaining -= take;
          if (remaining === 0) state = State.DataCr;
          continue;
        }
        const byte = input[i++]!;
        switch (state) {
          case State.Size: {
            const digit = hexValue(byte);
            if (digit >= 0) {
              if (++digits > MAX_SIZE_DIGITS) throw malformed("a chunk is too large");
              size = size * 16 + digit;
            } else if (byte === CR) state = State.SizeLf;
            else if (byte === LF) endSizeLine();
            else if (byte === 0x3b || byte === 0x20 || byte === 0x09) state = State.Extension;
            else throw malformed("a chunk size is not hexadecimal");
            break;
          }
          case State.Extension:
            if (byte === CR) state = State.SizeLf;
            else if (byte === LF) endSizeLine();
            break;
          case State.SizeLf:
            if (byte !== LF) throw malformed("a chunk size line does not end");
            endSizeLine();
            break;
          case State.DataCr:
            if (byte === CR) state = State.DataLf;
            else if (byte === LF) state = State.Size;
            else throw malformed("a chunk is longer than its size");
            break;
          case State.DataLf:
            if (byte !== LF) throw malformed("a chunk is longer than its size");
            state = State.Size;
            break;
          case State.TrailerStart:
            if (byte === CR) state = State.EndLf;
            else if (byte === LF) return done(i);
            else state = State.TrailerLine;
            break;
          case State.TrailerLine:
            if (byte === LF) state = State.TrailerStart;
            break;
          case State.EndLf:
            if (byte !== LF) throw malformed("the chunked body does not end");
            return done(i);
          case State.Done:
            return i - 1;
        }
      }
      return state === State.Done ? start : -1;
    },
  };

  function done(at: number): number {
    state = State.Done;
    return at;
  }
}

/** The value of an ASCII hex digit, or -1. */
function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  return -1;
}
