/**
 * Idle keep-alive connections per origin. The most recently used goes out first; one
 * idle too long, or that the upstream closed while it waited, is never handed out.
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
  /** Closes every idle connection. */
  close(): void;
}

/** An empty pool. */
export function createPool(now: () => number = () => performance.now()): Pool {
  const idle = new Map<string, Connection[]>();
  const remove = (connection: Connection) => {
    const list = idle.get(connection.origin.key);
    const at = list?.indexOf(connection) ?? -1;
    if (at >= 0) list!.splice(at, 1);
  };
  return {
    acquire(key) {
      const list = idle.get(key);
      for (let connection = list?.pop(); connection; connection = list!.pop()) {
        if (connection.closed) continue;
        connection.idle = false;
        if (now() - connection.idleSince <= MAX_IDLE_MS) return connection;
        connection.close();
      }
      return undefined;
    },
    release(connection) {
      let list = idle.get(connection.origin.key);
      if (!list) idle.set(connection.origin.key, list = []);
      if (connection.closed || list.length >= MAX_IDLE_PER_ORIGIN) return connection.close();
      list.push(connection);
      connection.watchIdle(() => {
        connection.close();
        remove(connection);
      });
    },
    close() {
      for (const list of idle.values()) for (const connection of list) connection.close();
      idle.clear();
    },
  };
}
