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

/** Connects to `hostname:port`, resolving once connected (the probe closes it); `signal` gives up. */
export type Probe = (hostname: string, port: number, signal: AbortSignal) => Promise<void>;

/** Watches connection set-up for upstream requests. */
export interface ConnectWatch {
  /**
   * Resolves at once for a host reached lately, else when a probe connects; rejects
   * with a timeout UpstreamFailure after `ms`, or a network one if the probe is refused.
   */
  reachable(url: string, ms: number): Promise<void>;
  /** Notes that the host of `url` answered. */
  reached(url: string): void;
}

/** A connect watch over real TCP connections (or the given probe) and a clock. */
export function createConnectWatch(now: () => number, probe: Probe = tcpProbe): ConnectWatch {
  const reachedAt = new Map<string, number>();
  const hostOf = (url: URL) => url.host;
  return {
    reachable(text, ms) {
      const url = new URL(text);
      const host = hostOf(url);
      const at = reachedAt.get(host);
      if (at !== undefined && now() - at < REACHABLE_FOR_MS) return Promise.resolve();
      const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
      return new Promise<void>((resolve, reject) => {
        const giveUp = new AbortController();
        const timer = setTimeout(() => {
          const failure = new UpstreamFailure(
            "timeout",
            `The upstream accepted no connection within ${ms} ms.`,
          );
          giveUp.abort(failure);
          reject(failure);
        }, ms);
        probe(url.hostname.replace(/^\[|\]$/g, ""), port, giveUp.signal).then(() => {
          clearTimeout(timer);
          reachedAt.set(host, now());
          resolve();
        }, (cause) => {
          clearTimeout(timer);
          if (giveUp.signal.aborted) return; // already rejected with the timeout
          reject(new UpstreamFailure("network", "The upstream could not be reached.", { cause }));
        });
      });
    },
    reached(text) {
      reachedAt.set(hostOf(new URL(text)), now());
    },
  };
}

/** Opens and closes a TCP connection. */
async function tcpProbe(hostname: string, port: number, signal: AbortSignal): Promise<void> {
  const connection = await Deno.connect({ hostname, port, signal });
  connection.close();
}
