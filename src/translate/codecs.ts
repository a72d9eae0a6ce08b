/** The translation codec of each protocol. */
import type { EntryProtocol } from "../config/schema.ts";
import { chatCodec } from "./chat/index.ts";
import type { Codec } from "./codec.ts";
import { convertError } from "./errors.ts";
import { messagesCodec } from "./messages/index.ts";

// TEMPORARY until the responses and messages codecs land: translation to or from them is refused.
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

const CODECS: Record<EntryProtocol, Codec> = {
  chat: chatCodec,
  responses: PENDING,
  messages: messagesCodec,
};

/** The codec of a protocol. */
export function codecOf(protocol: EntryProtocol): Codec {
  return CODECS[protocol];
}
