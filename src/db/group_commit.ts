/**
 * Group commit: the items queued during one turn of the event loop run together in one
 * transaction, so a busy server pays one commit for many requests (bench/README.md,
 * "The store"). Each item still gets its own result, and its promise resolves only once
 * its transaction committed: a request is never answered on a write not yet made.
 */
import { setImmediate } from "node:timers";
import { DatabaseUnavailableError } from "./store.ts";

interface Queued<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Queues items for `run`, which writes a list of them in one transaction and returns each
 * one's result in order. A failed transaction is tried again item by item, in order, so
 * that only the item at fault fails, unless the database is unavailable (each would fail
 * alike) or `retryAlone` says otherwise.
 */
export function groupCommit<I, R>(
  run: (items: I[]) => Promise<R[]>,
  retryAlone: (error: unknown) => boolean = (error) => !(error instanceof DatabaseUnavailableError),
): (item: I) => Promise<R> {
  let queued: Queued<I, R>[] = [];
  const flush = async () => {
    const batch = queued;
    queued = [];
    try {
      const results = await run(batch.map((entry) => entry.item));
      batch.forEach((entry, i) => entry.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1 || !retryAlone(error)) {
        for (const entry of batch) entry.reject(error);
        return;
      }
      for (const entry of batch) {
        await run([entry.item]).then(([result]) => entry.resolve(result!), entry.reject);
      }
    }
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      queued.push({ item, resolve, reject });
      // After the I/O callbacks of this turn, so requests arriving together share a commit.
      if (queued.length === 1) setImmediate(flush);
    });
}
