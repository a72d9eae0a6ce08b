/**
 * Group commit: writes queued during one turn of the event loop run together in one
 * transaction, so a busy server pays one commit for many requests. Each job still
 * gets its own results, and its promise resolves only once its transaction has
 * committed, so a request is never answered before its row is durable.
 */
import type { Client, InStatement, ResultSet } from "@libsql/client";

/** Runs a job's statements atomically (with others) and returns their results. */
export type Write = (statements: InStatement[]) => Promise<ResultSet[]>;

interface Job {
  statements: InStatement[];
  resolve: (results: ResultSet[]) => void;
  reject: (error: unknown) => void;
}

/** A Write that batches jobs per event-loop turn; a failing batch is retried job by job. */
export function createWriteQueue(client: Client): Write {
  let pending: Job[] = [];
  let flushing = false;

  const runAlone = async (job: Job) => {
    try {
      job.resolve(await client.batch(job.statements, "write"));
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
        const results = await client.batch(jobs.flatMap((job) => job.statements), "write");
        let offset = 0;
        for (const job of jobs) {
          job.resolve(results.slice(offset, offset + job.statements.length));
          offset += job.statements.length;
        }
      } catch {
        // One job's failure rolled back the whole batch: run each alone so only it fails.
        for (const job of jobs) await runAlone(job);
      }
    }
    flushing = false;
  };

  return (statements) =>
    new Promise<ResultSet[]>((resolve, reject) => {
      pending.push({ statements, resolve, reject });
      if (!flushing && pending.length === 1) setTimeout(flush, 0);
    });
}

/** A Write that commits each job on its own (no batching). */
export function directWrite(client: Client): Write {
  return (statements) => client.batch(statements, "write");
}
