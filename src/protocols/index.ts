/** The three wire protocols by name. */
import type { EntryProtocol } from "../config/schema.ts";
import { chat } from "./chat/index.ts";
import { messages } from "./messages/index.ts";
import type { Protocol } from "./protocol.ts";
import { responses } from "./responses/index.ts";

export type { Protocol } from "./protocol.ts";

const PROTOCOLS: Record<EntryProtocol, Protocol> = { chat, responses, messages };

/** The protocol module of an entry protocol. */
export function protocolOf(name: EntryProtocol): Protocol {
  return PROTOCOLS[name];
}

/** A fresh response id in the protocol's style: `chatcmpl-…`, `resp_…` or `msg_…`. */
export function replyId(protocol: Protocol): string {
  return protocol.idPrefix + crypto.randomUUID().replaceAll("-", "");
}
