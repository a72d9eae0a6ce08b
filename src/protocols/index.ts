/**
 * The protocols tollgate speaks, by name: the one place a protocol is registered. The
 * config's enums name those it exposes as entry points and channels (config/schema.ts).
 */
import { chat } from "./chat/index.ts";
import { gemini } from "./gemini/index.ts";
import { messages } from "./messages/index.ts";
import type { Protocol, ProtocolName } from "./protocol.ts";
import { responses } from "./responses/index.ts";
export type { Protocol, ProtocolName } from "./protocol.ts";

const PROTOCOLS: Readonly<Record<ProtocolName, Protocol>> = { chat, responses, messages, gemini };

/** The protocol of a name (an entry point's, a channel's). */
export function protocolOf(name: ProtocolName): Protocol {
  return PROTOCOLS[name];
}

/** Every protocol tollgate speaks. */
export const PROTOCOL_LIST: readonly Protocol[] = Object.values(PROTOCOLS);

/** A fresh response id in the protocol's style: `chatcmpl-…`, `resp_…` or `msg_…`. */
export function replyId(protocol: Protocol): string {
  return protocol.idPrefix + crypto.randomUUID().replaceAll("-", "");
}
