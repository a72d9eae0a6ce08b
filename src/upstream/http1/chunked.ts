/**
 * `Transfer-Encoding: chunked` (RFC 9112 §7.1), decoded as the bytes arrive: network
 * reads split the framing anywhere, so the decoder keeps its place between calls and
 * tells where the payload is in the input (ranges, not views: no object per chunk).
 * Read as strictly as llhttp (Node's parser) reads it: every line ends with CRLF, a size
 * is followed by nothing but `;` and well-formed extensions, a trailer line is a field;
 * and extensions and trailers are bounded (the class of Node's CVE-2024-22019), since
 * their bytes are read and dropped without limit otherwise.
 */
import { isTokenByte, isValueByte } from "./fields.ts";
import { MalformedResponse } from "./head.ts";
import { DEFAULT_ANSWER_LIMITS } from "./limits.ts";

/** Decodes one chunked body. */
export interface ChunkedDecoder {
  /**
   * Pushes where the payload in `input[start, end)` is onto `ranges`, as pairs of start
   * and end indexes; returns the index just after the body's last byte once it ended,
   * else -1 (more is needed).
   */
  decode(input: Uint8Array, start: number, end: number, ranges: number[]): number;
}

/** The bounds on a chunked body's framing, in bytes. */
export interface ChunkedLimits {
  /** The extensions of one chunk: from its `;` to the end of its size line. */
  maxChunkExtensionBytes: number;
  /** The trailer section: from after the last chunk's size line to the body's end. */
  maxTrailerBytes: number;
}

const CR = 13;
const LF = 10;
const SPACE = 32;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
/** Hex digits of a chunk size: 2^52 bytes is beyond any answer and exact as a number. */
const MAX_SIZE_DIGITS = 13;

// Where the decoder is in the framing.
const State = {
  /** The first digit of a size. */
  SizeStart: 0,
  Size: 1,
  /** Just after a `;`: an extension's name starts. */
  Extension: 2,
  ExtensionName: 3,
  ExtensionValue: 4,
  QuotedValue: 5,
  QuotedPair: 6,
  QuotedDone: 7,
  SizeLf: 8,
  Data: 9,
  DataCr: 10,
  DataLf: 11,
  /** The start of a trailer line, or of the blank line that ends the body. */
  TrailerStart: 12,
  TrailerName: 13,
  TrailerValue: 14,
  TrailerLf: 15,
  EndLf: 16,
  Done: 17,
} as const;
type State = typeof State[keyof typeof State];

/**
 * A decoder at the start of a chunked body; `malformed` makes the error a framing fault
 * throws (an upstream's answer by default; the server reads clients' bodies with it too).
 */
export function createChunkedDecoder(
  malformed: (why: string) => Error = (why) => new MalformedResponse(why),
  limits: ChunkedLimits = DEFAULT_ANSWER_LIMITS,
): ChunkedDecoder {
  const { maxChunkExtensionBytes, maxTrailerBytes } = limits;
  const extensionsTooLong =
    `a chunk's extensions are longer than server.max_chunk_extension_bytes (${maxChunkExtensionBytes} bytes)`;
  const trailersTooLong =
    `its trailers are longer than server.max_trailer_bytes (${maxTrailerBytes} bytes)`;
  let state: State = State.SizeStart;
  let size = 0;
  let digits = 0;
  let remaining = 0;
  /** Bytes of the current chunk's extensions, or of the trailer section, so far. */
  let counted = 0;
  const endSizeLine = () => {
    state = size === 0 ? State.TrailerStart : State.Data;
    remaining = size;
    size = 0;
    digits = 0;
    counted = 0;
  };
  /** After an extension's name or value: another, or the line's end. */
  const afterExtension = (byte: number, what: string) => {
    if (byte === SEMICOLON) state = State.Extension;
    else if (byte === CR) state = State.SizeLf;
    else if (byte === LF) throw malformed("a chunk size line ends with a bare LF");
    else throw malformed(`a chunk extension's ${what} has a character it may not have`);
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
        // Every byte of an extension, and of a trailer line, counts toward its bound.
        if (state >= State.Extension && state <= State.QuotedDone) {
          if (++counted > maxChunkExtensionBytes) throw malformed(extensionsTooLong);
        } else if (
          state >= State.TrailerName && state <= State.TrailerLf ||
          state === State.TrailerStart && byte !== CR
        ) {
          if (++counted > maxTrailerBytes) throw malformed(trailersTooLong);
        }
        switch (state) {
          case State.SizeStart:
          case State.Size: {
            const digit = hexValue(byte);
            if (digit >= 0) {
              if (++digits > MAX_SIZE_DIGITS) throw malformed("a chunk is too large");
              size = size * 16 + digit;
              state = State.Size;
            } else if (state === State.SizeStart) throw malformed("a chunk size is missing");
            else if (byte === CR) state = State.SizeLf;
            else if (byte === SEMICOLON) state = State.Extension;
            else if (byte === LF) throw malformed("a chunk size line ends with a bare LF");
            else throw malformed("a chunk size is followed by something other than ';'");
            break;
          }
          case State.Extension:
            // What llhttp allows: an empty name, but no blank and no line end after the `;`.
            if (byte === SPACE || byte === CR) {
              throw malformed("a chunk extension's name is missing");
            }
            state = State.ExtensionName;
          // falls through: the byte is the name's first
          case State.ExtensionName:
            if (isTokenByte(byte)) break;
            if (byte === EQUALS) state = State.ExtensionValue;
            else afterExtension(byte, "name");
            break;
          case State.ExtensionValue:
            if (isTokenByte(byte)) break;
            if (byte === QUOTE) state = State.QuotedValue;
            else afterExtension(byte, "value");
            break;
          case State.QuotedValue:
            if (byte === QUOTE) state = State.QuotedDone;
            else if (byte === BACKSLASH) state = State.QuotedPair;
            else if (!isValueByte(byte)) {
              throw malformed("a chunk extension's quoted value has a control character");
            }
            break;
          case State.QuotedPair:
            if (!isValueByte(byte)) {
              throw malformed("a chunk extension's quoted value has a control character");
            }
            state = State.QuotedValue;
            break;
          case State.QuotedDone:
            afterExtension(byte, "quoted value");
            break;
          case State.SizeLf:
            if (byte !== LF) throw malformed("a chunk size line has a CR without an LF");
            endSizeLine();
            break;
          case State.DataCr:
            if (byte === CR) state = State.DataLf;
            else if (byte === LF) throw malformed("a chunk's data ends with a bare LF");
            else throw malformed("a chunk is longer than its size");
            break;
          case State.DataLf:
            if (byte !== LF) throw malformed("a chunk's data ends with a CR without an LF");
            state = State.SizeStart;
            break;
          case State.TrailerStart:
            if (byte === CR) state = State.EndLf;
            else if (isTokenByte(byte)) state = State.TrailerName;
            else if (byte === LF) throw malformed("a chunked body ends with a bare LF");
            else throw malformed("a trailer line is not a field");
            break;
          case State.TrailerName:
            if (byte === COLON) state = State.TrailerValue;
            else if (!isTokenByte(byte)) throw malformed("a trailer line is not a field");
            break;
          case State.TrailerValue:
            if (byte === CR) state = State.TrailerLf;
            else if (byte === LF) throw malformed("a trailer line ends with a bare LF");
            else if (!isValueByte(byte)) throw malformed("a trailer has a control character");
            break;
          case State.TrailerLf:
            if (byte !== LF) throw malformed("a trailer line has a CR without an LF");
            state = State.TrailerStart;
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
