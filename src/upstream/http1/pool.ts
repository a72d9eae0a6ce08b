/**
 * Idle keep-alive connections per origin. The most recently used goes out first; one
 * idle too long, or that the upstream closed while it waited, is never handed out, and a
 * sweep closes those idle too long though no request asks for them.
 */
import type { Connection } from "./connection.ts";

/**
 * Idle time after which a connection is not reused: shorter than the keep-alive of the
 * servers in front of LLM APIs, so that neither side closes one as it is used, and a
 * connection a middlebox dropped without a word is not trusted with a request.
 */
export const MAX_IDLE_MS = 30_000;
/** Idle connections kept per origin; past this a released one closes. */
const MAX_IDLE_PER_ORIGIN = 256;

/** Idle connections by origin key. */
export interface Pool {
  /** An idle connection to the origin, no longer idle; undefined if none is usable. */
  acquire(key: string): Connection | undefined;
  /** Takes back a connection whose response ended exactly (it may carry another request). */
  release(connection: Connection): void;
  /** Closes every idle connection, and every one released from now on. */
  close(): void;
}

/** An empty pool; `maxIdleMs` is MAX_IDLE_MS unless a test shortens it. */
export function createPool(maxIdleMs = MAX_IDLE_MS): Pool {
  const idle = new Map<string, Connection[]>();
  let closed = false;
  /** The sweep's timer, running while any connection is idle. */
  let sweeper: ReturnType<typeof setInterval> | undefined;
  const remove = (connection: Connection) => {
    const list = idle.get(connection.origin.key);
    const at = list?.indexOf(connection) ?? -1;
    if (at >= 0) list!.splice(at, 1);
  };
  // idleSince is the connection's performance.now() when it went idle (connection.ts).
  const tooOld = (connection: Connection) => performance.now() - connection.idleSince > maxIdleMs;
  const sweep = () => {
    let left = 0;
    for (const list of idle.values()) {
      // Oldest first: the list is in release order.
      for (let oldest = list[0]; oldest && (oldest.closed || tooOld(oldest)); oldest = list[0]) {
        list.shift();
        oldest.close();
      }
      left += list.length;
    }
    if (left === 0) stopSweeping();
  };
  const stopSweeping = () => {
    clearInterval(sweeper);
    sweeper = undefined;
  };
  return {
    acquire(key) {
      const list = idle.get(key);
      for (let connection = list?.pop(); connection; connection = list!.pop()) {
        if (connection.closed) continue;
        connection.idle = false;
        if (!tooOld(connection)) return connection;
        connection.close();
      }
      return undefined;
    },
    release(connection) {
      if (closed || connection.closed) return connection.close();
      let list = idle.get(connection.origin.key);
      if (!list) idle.set(connection.origin.key, list = []);
      if (list.length >= MAX_IDLE_PER_ORIGIN) return connection.close();
      list.push(connection);
      connection.watchIdle(() => {
        connection.close();
        remove(connection);
      });
      if (sweeper === undefined) {
        const timer = setInterval(sweep, maxIdleMs);
        // Idle connections alone do not keep the process running.
        Deno.unrefTimer(timer);
        sweeper = timer;
      }
    },
    close() {
      closed = true;
      stopSweeping();
      for (const list of idle.values()) for (const connection of list) connection.close();
      idle.clear();
    },
  };
}
