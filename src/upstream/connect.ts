/**
 * The `connect` timeout, which `fetch` does not have: while a request is sent, a TCP
 * probe to the same host must connect within `connect` ms, else the attempt fails at
 * once (and fails over) instead of waiting out `first_byte` on a host that never
 * answers a SYN. A host reached lately is not probed again, so a busy channel pays
 * one probe per host every few seconds, not one per request.
 */
import { UpstreamFailure } from "./call.ts";

/** How long a host that accepted a connection counts as reachable. */
export const REACHABLE_FOR_MS = 10_000;
/** Distinct request URLs whose host is kept; past this (a query string per request) it restarts. */
const MAX_URLS = 1_000;

/** Connects to `hostname:port`, resolving once connected (the probe closes it); `signal` gives up. */
export type Probe = (hostname: string, port: number, signal: AbortSignal) => Promise<void>;

/** Watches connection set-up for upstream requests. */
export interface ConnectWatch {
  /**
   * Nothing for a host reached lately (nothing to wait for); else resolves when a probe
   * connects, or rejects with a timeout UpstreamFailure after `ms`, or a network one if
   * the probe is refused.
   */
  reachable(url: string, ms: number): Promise<void> | undefined;
  /** Notes that the host of `url` answered. */
  reached(url: string): void;
}

/** A connect watch over real TCP connections (or the given probe) and a clock. */
export function createConnectWatch(now: () => number, probe: Probe = tcpProbe): ConnectWatch {
  const reachedAt = new Map<string, number>();
  // One probe per host at a time: a burst of requests to a cold host shares it, instead
  // of opening a second connection beside each request. It is given up when the last
  // request waiting on it has timed out.
  const probing = new Map<
    string,
    { done: Promise<void>; waiters: number; giveUp: AbortController }
  >();
  const probeHost = (url: URL, host: string) => {
    let shared = probing.get(host);
    if (!shared) {
      const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
      const giveUp = new AbortController();
      const done = probe(url.hostname.replace(/^\[|\]$/g, ""), port, giveUp.signal)
        .then(() => void reachedAt.set(host, now()))
        .finally(() => probing.delete(host));
      shared = { done, waiters: 0, giveUp };
      probing.set(host, shared);
    }
    shared.waiters++;
    return shared;
  };
  // Request URLs repeat (a channel's base URL and an operation's path): each is parsed once.
  const hosts = new Map<string, string>();
  const hostOf = (text: string) => {
    let host = hosts.get(text);
    if (host === undefined) {
      if (hosts.size >= MAX_URLS) hosts.clear();
      hosts.set(text, host = new URL(text).host);
    }
    return host;
  };
  return {
    reachable(text, ms) {
      const host = hostOf(text);
      const at = reachedAt.get(host);
      if (at !== undefined && now() - at < REACHABLE_FOR_MS) return undefined;
      const shared = probeHost(new URL(text), host);
      return new Promise<void>((resolve, reject) => {
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          const failure = new UpstreamFailure(
            "timeout",
            `The upstream accepted no connection within ${ms} ms.`,
          );
          if (--shared.waiters === 0) shared.giveUp.abort(failure);
          reject(failure);
        }, ms);
        shared.done.then(() => {
          clearTimeout(timer);
          if (!timedOut) resolve();
        }, (cause) => {
          clearTimeout(timer);
          if (timedOut) return; // already rejected with the timeout
          reject(new UpstreamFailure("network", "The upstream could not be reached.", { cause }));
        });
      });
    },
    reached(text) {
      reachedAt.set(hostOf(text), now());
    },
  };
}

/** Opens and closes a TCP connection. */
async function tcpProbe(hostname: string, port: number, signal: AbortSignal): Promise<void> {
  const connection = await Deno.connect({ hostname, port, signal });
  connection.close();
}
