/** The translation codec of each protocol. */
import type { EntryProtocol } from "../config/schema.ts";
import { chatCodec } from "../protocols/chat/codec.ts";
import type { Codec } from "./codec.ts";
import { messagesCodec } from "../protocols/messages/codec.ts";
import { responsesCodec } from "../protocols/responses/codec.ts";

const CODECS: Record<EntryProtocol, Codec> = {
  chat: chatCodec,
  responses: responsesCodec,
  messages: messagesCodec,
};

/** The codec of a protocol. */
export function codecOf(protocol: EntryProtocol): Codec {
  return CODECS[protocol];
}
