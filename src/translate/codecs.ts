/** The translation codec of each protocol. */
import type { EntryProtocol } from "../config/schema.ts";
import { chatCodec } from "./chat/index.ts";
import type { Codec } from "./codec.ts";
import { messagesCodec } from "./messages/index.ts";
import { responsesCodec } from "./responses/index.ts";

const CODECS: Record<EntryProtocol, Codec> = {
  chat: chatCodec,
  responses: responsesCodec,
  messages: messagesCodec,
};

/** The codec of a protocol. */
export function codecOf(protocol: EntryProtocol): Codec {
  return CODECS[protocol];
}
