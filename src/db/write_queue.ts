/**
 * Group commit: writes queued during one turn of the event loop run together in one
 * transaction, so a busy server pays one commit for many requests. Each job still
 * gets its own results, and its promise resolves only once its transaction has
 * committed, so a request is never answered before its row is durable.
 */
import { setImmediate } from "node:timers";
import type { RunTransaction, SqlClient, SqlResult, SqlStatement } from "./sql_client.ts";

/** Runs a job's statements atomically (possibly with other jobs) and returns their results. */
export type Write = (statements: SqlStatement[]) => Promise<SqlResult[]>;

interface Job<S, R> {
  statements: S[];
  resolve: (results: R[]) => void;
  reject: (error: unknown) => void;
}

/** A Write that batches jobs per event-loop turn; a failing batch is retried job by job. */
export function createWriteQueue(run: RunTransaction): Write {
  return createBatchQueue(run);
}

/**
 * Group commit over any kind of item: each job's items run with those of the other jobs
 * queued in the same turn in one call of `run` (one transaction), and each job gets the
 * results of its own items; a failing batch is retried job by job, unless `retryAlone`
 * says its error would fail every job anyway (the database is gone).
 */
export function createBatchQueue<S, R>(
  run: (items: S[]) => R[] | Promise<R[]>,
  retryAlone: (error: unknown) => boolean = () => true,
): (items: S[]) => Promise<R[]> {
  let pending: Job<S, R>[] = [];
  let flushing = false;

  const runAlone = async (job: Job<S, R>) => {
    try {
      job.resolve(await run(job.statements));
    } catch (error) {
      job.reject(error);
    }
  };

  const flush = async () => {
    flushing = true;
    while (pending.length > 0) {
      const jobs = pending;
      pending = [];
      try {
        const results = await run(jobs.flatMap((job) => job.statements));
        let offset = 0;
        for (const job of jobs) {
          job.resolve(results.slice(offset, offset + job.statements.length));
          offset += job.statements.length;
        }
      } catch (error) {
        // One job's failure rolled back the whole batch: run each alone so only it fails.
        if (retryAlone(error)) { for (const job of jobs) await runAlone(job); }
        else for (const job of jobs) job.reject(error);
      }
    }
    flushing = false;
  };

  return (statements) =>
    new Promise<R[]>((resolve, reject) => {
      pending.push({ statements, resolve, reject });
      // After the I/O callbacks of this turn, so requests finishing together share a commit.
      if (!flushing && pending.length === 1) setImmediate(flush);
    });
}

/** Runs transactions through a client's batch (a libSQL server's). */
export function clientTransaction(client: SqlClient): RunTransaction {
  return (statements) => client.batch(statements, "write");
}
