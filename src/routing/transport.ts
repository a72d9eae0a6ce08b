/**
 * How a channel is reached. Every channel but one is an upstream over HTTP that speaks
 * its own protocol; the built-in `echo` is a transport of its own: it calls nothing and
 * answers in whatever protocol it is asked in (design.md, Config file).
 */
import type { ChannelConfig } from "../config/schema.ts";
import { type Protocol, protocolOf } from "../protocols/index.ts";

/** Whether `channel` is the built-in echo, which no request leaves the gateway for. */
export function isEcho(channel: ChannelConfig): boolean {
  return channel.protocol === "echo";
}

/** The protocol `channel`'s upstream speaks; none for the echo, which has no upstream. */
export function upstreamProtocol(channel: ChannelConfig): Protocol | undefined {
  return channel.protocol === "echo" ? undefined : protocolOf(channel.protocol);
}

/** The protocol `channel` answers an entry point's request in: its own, or the entry's for echo. */
export function answersIn(channel: ChannelConfig, entry: Protocol): Protocol {
  return upstreamProtocol(channel) ?? entry;
}
