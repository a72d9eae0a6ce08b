/** The translation codec of each protocol. */
import type { EntryProtocol } from "../config/schema.ts";
import type { Codec } from "./codec.ts";
import { convertError } from "./errors.ts";

// TEMPORARY until the three codecs land: every translation is refused.
const missing = (): never => {
  throw convertError("model", "translation between protocols is not built yet");
};
const PENDING: Codec = {
  decodeRequest: missing,
  encodeRequest: missing,
  decodeResponse: missing,
  encodeResponse: missing,
  createStreamDecoder: missing,
  createStreamEncoder: missing,
};

/** The codec of a protocol. */
export function codecOf(_protocol: EntryProtocol): Codec {
  return PENDING;
}
