/**
 * Group commit: writes queued during one turn of the event loop run together in one
 * transaction, so a busy server pays one commit for many requests. Each job still
 * gets its own results, and its promise resolves only once its transaction has
 * committed, so a request is never answered before its hold is durable. Deferred jobs
 * (settlements, written after their answers went out) keep out of those transactions:
 * they commit together, a few milliseconds after the first of them was queued.
 */
import { setImmediate } from "node:timers";

/**
 * How long a deferred job waits for others to commit with. A hold's transaction then
 * writes only the hold and the running totals: a settlement's ledger row and its four
 * indexes would triple the pages its commit writes, on the path of the request waiting
 * for it. Under load a longer wait gathers more settlements into one commit, so each
 * request pays a smaller share of one (bench/README.md has the measurements). The price is
 * the crash window: a process killed in these milliseconds leaves the holds, which
 * recovery turns into `interrupted` rows, as for requests still running.
 */
export const DEFERRED_MS = 50;

/**
 * When a job runs: in this turn's batch (`now`), with the deferred jobs after their delay
 * (`deferred`), or in this turn's batch with every deferred job ahead of it, their delay
 * cut short (`after-deferred`: a hold refused for money a waiting settlement releases).
 */
export type Timing = "now" | "deferred" | "after-deferred";

interface Job<S, R> {
  statements: S[];
  resolve: (results: R[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit over any kind of item: each job's items run with those of the other jobs
 * queued in the same turn in one call of `run` (one transaction), and each job gets the
 * results of its own items; a failing batch is retried job by job, unless `retryAlone`
 * says its error would fail every job anyway (the database is gone). Deferred jobs run
 * together `deferMs` after the first of them was queued, ahead of the jobs queued by then
 * (0, the default: a deferred job runs in this turn's batch like any other); `afterDelay`
 * is setTimeout unless a test keeps the time itself. See Timing. `deferredTaken` (with a
 * delay only) runs as a batch takes the deferred jobs, before it runs them: until then a
 * caller may still add items to a deferred job's array, as the SQLite store's
 * settlements share one job.
 */
export function createBatchQueue<S, R>(
  run: (items: S[]) => R[] | Promise<R[]>,
  { retryAlone = () => true, deferMs = 0, afterDelay = setTimeout, deferredTaken }: {
    retryAlone?: (error: unknown) => boolean;
    deferMs?: number;
    afterDelay?: (callback: () => void, ms: number) => unknown;
    deferredTaken?: () => void;
  } = {},
): (items: S[], timing?: Timing) => Promise<R[]> {
  if (deferredTaken && deferMs <= 0) {
    throw new Error("deferredTaken needs a delay: without one, deferred jobs run as any other.");
  }
  let pending: Job<S, R>[] = [];
  let deferred: Job<S, R>[] = [];
  /** Whether the deferred jobs' delay is over: the next batch takes them. */
  let deferredDue = false;
  let flushing = false;

  const runAlone = async (job: Job<S, R>) => {
    try {
      job.resolve(await run(job.statements));
    } catch (error) {
      job.reject(error);
    }
  };

  const runBatch = async (jobs: Job<S, R>[]) => {
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
  };

  const flush = async () => {
    flushing = true;
    while (pending.length > 0 || deferredDue) {
      let jobs = pending;
      pending = [];
      if (deferredDue) {
        // Settlements first: a hold in the same batch sees the money they release.
        jobs = deferred.concat(jobs);
        deferred = [];
        deferredDue = false;
        deferredTaken?.();
      }
      // Empty when a job after the deferred ones took them before their delay ended.
      if (jobs.length > 0) await runBatch(jobs);
    }
    flushing = false;
  };

  // A running flush takes whatever is pending (and deferred, once due) when its batch ends.
  let soon = false;
  /** Whether a delay runs for the deferred jobs queued. */
  let waiting = false;
  const startSoon = () => {
    soon = false;
    if (!flushing) void flush();
  };
  const startLater = () => {
    waiting = false;
    deferredDue = true;
    if (!flushing) void flush();
  };
  return (statements, timing = "now") =>
    new Promise<R[]>((resolve, reject) => {
      const job = { statements, resolve, reject };
      if (timing === "after-deferred") deferredDue = true;
      else if (timing === "deferred" && deferMs > 0) {
        deferred.push(job);
        if (!waiting) afterDelay(startLater, deferMs);
        waiting = true;
        return;
      }
      pending.push(job);
      if (flushing || soon) return;
      // After the I/O callbacks of this turn, so requests arriving together share a commit.
      soon = true;
      setImmediate(startSoon);
    });
}
