/**
 * How a channel is reached. Every channel but one is an upstream over HTTP that speaks
 * its own protocol; the built-in `echo` is a transport of its own: it calls nothing and
 * answers in whatever protocol it is asked in (design.md, Config file).
 */
import type { ChannelConfig, EntryProtocol } from "../config/schema.ts";

/** Whether `channel` is the built-in echo, which no request leaves the gateway for. */
export function isEcho(channel: ChannelConfig): boolean {
  return channel.protocol === "echo";
}

/** The protocol `channel` answers an entry point's request in: its own, or the entry's for echo. */
export function answersIn(channel: ChannelConfig, entry: EntryProtocol): EntryProtocol {
  return channel.protocol === "echo" ? entry : channel.protocol;
}
