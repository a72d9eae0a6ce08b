/**
 * Group commit: writes queued during one turn of the event loop run together in one
 * transaction, so a busy server pays one commit for many requests. Each job still
 * gets its own results, and its promise resolves only once its transaction has
 * committed, so a request is never answered before its hold is durable. A deferred job
 * (a settlement, written after its answer went out) starts no transaction of its own:
 * it rides with the next hold's, or commits alone after a few milliseconds.
 */
import { setImmediate } from "node:timers";

/**
 * How long a deferred job waits for a transaction to ride with. A settlement that rides
 * with the next hold saves a commit (~10% of a request's CPU at concurrency 1); the
 * price is the crash window: a process killed in these milliseconds leaves the hold,
 * which recovery turns into an `interrupted` row, as for a request still running.
 */
export const DEFERRED_MS = 10;

interface Job<S, R> {
  statements: S[];
  resolve: (results: R[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit over any kind of item: each job's items run with those of the other jobs
 * queued in the same turn in one call of `run` (one transaction), and each job gets the
 * results of its own items; a failing batch is retried job by job, unless `retryAlone`
 * says its error would fail every job anyway (the database is gone). A deferred job waits
 * up to `deferMs` for a job that is not (0, the default: it runs in this turn's batch).
 */
export function createBatchQueue<S, R>(
  run: (items: S[]) => R[] | Promise<R[]>,
  { retryAlone = () => true, deferMs = 0 }: {
    retryAlone?: (error: unknown) => boolean;
    deferMs?: number;
  } = {},
): (items: S[], deferred?: boolean) => Promise<R[]> {
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

  // At most one flush is scheduled: this turn's (setImmediate) or a deferred one's (timer).
  let soon = false;
  let later: ReturnType<typeof setTimeout> | undefined;
  const start = () => {
    soon = false;
    clearTimeout(later);
    later = undefined;
    void flush();
  };
  return (statements, deferred = false) =>
    new Promise<R[]>((resolve, reject) => {
      pending.push({ statements, resolve, reject });
      // A running flush takes whatever is pending when its transaction ends.
      if (flushing || soon) return;
      if (deferred && deferMs > 0) {
        later ??= setTimeout(start, deferMs);
      } else {
        // After the I/O callbacks of this turn, so requests finishing together share a commit.
        soon = true;
        setImmediate(start);
      }
    });
}
