/**
 * The store on SQLite (a file, or a libSQL server): holds and settlement as
 * group-committed batches (holds.ts, write_queue.ts); instances and key lookups through
 * the client. One process owns a file, so its own clock is the store's clock.
 */
import type { ChangeCounts, ReadNow, RunTransaction, SqlClient } from "./sql_client.ts";
import { createHoldDecider, UnwrittenHolds } from "./hold_decider.ts";
import { findReleasableHolds, interruptJobs, presentHolds } from "./hold_recovery.ts";
import { type AccountingJob, runAccounting } from "./holds.ts";
import { type HoldJournal, takeHoldJournal } from "./hold_journal.ts";
import { listInstances, registerInstance, removeInstances } from "./instances.ts";
import { HAS_KEYS_SQL, keyByHashSql } from "./keys.ts";
import {
  DatabaseUnavailableError,
  type HoldResult,
  type KeyWithAccount,
  type NewHold,
  NO_FAILURES,
  type SettlementFailure,
  type Store,
} from "./store.ts";
import { createBatchQueue, DEFERRED_MS } from "./write_queue.ts";

/**
 * Result codes that mean "not now" rather than a bug: the file is locked past the busy
 * timeout, cannot be opened or written (disk full, I/O error), or the server is gone.
 */
const UNAVAILABLE =
  /^(SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL)|SERVER_ERROR|HRANA_)/;
/**
 * The same conditions as the runtime's SQLite words them: its errors all carry the
 * code `ERR_SQLITE_ERROR` and SQLite's own message for the result code.
 */
const UNAVAILABLE_MESSAGE =
  /^(database is locked|database table is locked|disk I\/O error|unable to open database file|database or disk is full|attempt to write a readonly database|locking protocol)/;

const KEY_BY_HASH = keyByHashSql("?");

type SettleJob = Extract<AccountingJob, { kind: "settle" }>;

/** Whether a driver error means the database is unavailable (see UNAVAILABLE). */
export function isSqliteUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ERR_SQLITE_ERROR") {
    return error instanceof Error && UNAVAILABLE_MESSAGE.test(error.message);
  }
  if (typeof code === "string") return UNAVAILABLE.test(code);
  // Network failures toward a libSQL server surface as fetch's TypeError.
  return error instanceof TypeError && /fetch|network|connect/i.test(error.message);
}

/** Rethrows an unavailable database's error as DatabaseUnavailableError. */
function guard<T>(operation: Promise<T>): Promise<T> {
  return operation.catch((error: unknown) => {
    throw guarded(error);
  });
}

/** An unavailable database's error as DatabaseUnavailableError, any other as it is. */
function guarded(error: unknown): unknown {
  return isSqliteUnavailable(error) ? new DatabaseUnavailableError(error) : error;
}

const first = <T>(results: readonly (T | undefined)[]): T => results[0]!;

/**
 * How long a journalled hold stays out of the database: a batch writes the row of a hold
 * this old, or one it settles (then neither the row nor its release is written). Whole
 * answers are mostly settled sooner, so they write no hold row at all; at 32 concurrent
 * requests two holds in five had been written and deleted again (bench/README.md). A
 * young hold counts as held all the while (the decider counts every unwritten hold) and
 * survives a crash in the journal, which keeps it past each commit mark.
 */
export const RECORD_AFTER_MS = 100;

/**
 * The store of a SQLite database: holds, settlements and interruptions group-commit
 * through `transaction` (settlements in their own batch, see write_queue.ts),
 * `client` runs the rest. Given a `journal` (a file's path for it, the file's reads and its
 * counts of changes), the first heartbeat takes the hold journal there (hold_journal.ts),
 * unless another server owns it: from then on a hold is decided without a transaction
 * (hold_decider.ts) and appended to the journal, and its row is written with the
 * settlements once it is RECORD_AFTER_MS old, while its request goes upstream.
 */
export function createSqliteStore(
  client: SqlClient,
  transaction: RunTransaction,
  { journal: journalFile }: {
    journal?: { path: string; readNow: ReadNow; changes: ChangeCounts };
  } = {},
): Store & { close(): void } {
  let journal: HoldJournal | undefined;
  /** Holds in the journal and not yet in the database, in the order taken. */
  const unrecorded: NewHold[] = [];
  /** When each of them was taken (performance.now()), index for index. */
  const takenAt: number[] = [];
  /** What they hold, summed. */
  const unwritten = new UnwrittenHolds();
  /** Flushes waiting: their batches write every hold, young or not. */
  let flushes = 0;
  let recordTimer: ReturnType<typeof setTimeout> | undefined;
  /** A batch when the oldest unwritten hold comes of age, if no other batch writes it first. */
  const recordLater = () => {
    const first = unrecorded[0];
    if (recordTimer !== undefined || !first) return;
    const due = takenAt[0]! + RECORD_AFTER_MS - performance.now();
    recordTimer = setTimeout(() => {
      recordTimer = undefined;
      apply([]).catch(() => recordLater());
    }, Math.max(0, Math.ceil(due)));
    // It holds no process open: a closed store's holds are in its journal.
    Deno.unrefTimer(recordTimer);
  };
  /** The settlements of the deferred batch not yet taken, which more may join. */
  let waiting: { jobs: SettleJob[]; done: Promise<readonly SettlementFailure[]> } | undefined;
  // A batch writes the journal's holds it settles and those of age first: a settlement
  // finds its hold, written or settled in the same batch.
  const apply = createBatchQueue((jobs: AccountingJob[]) => {
    const settled = new Set<string>();
    for (const job of jobs) if (job.kind === "settle") settled.add(job.settle.holdId);
    const now = performance.now();
    const recording = unrecorded.filter((hold, i) =>
      flushes > 0 || settled.has(hold.id) || now - takenAt[i]! >= RECORD_AFTER_MS
    );
    if (recording.length === 0) {
      // A timer may ring a little early: the holds it was set for come of age later.
      recordLater();
      return jobs.length === 0 ? [] : runAccounting(transaction, jobs);
    }
    const records = recording.map((hold): AccountingJob => ({ kind: "record", hold }));
    return runAccounting(transaction, [...records, ...jobs], () => {
      const written = new Set(recording);
      let kept = 0;
      for (let i = 0; i < unrecorded.length; i++) {
        if (written.has(unrecorded[i]!)) {
          unwritten.remove(unrecorded[i]!);
          continue;
        }
        takenAt[kept] = takenAt[i]!;
        unrecorded[kept++] = unrecorded[i]!;
      }
      unrecorded.length = kept;
      takenAt.length = kept;
      journal?.committed(unrecorded);
      recordLater();
    }).then((results) => results.slice(records.length));
  }, { deferMs: DEFERRED_MS, deferredTaken: () => void (waiting = undefined) });
  const decideHolds = journalFile &&
    createHoldDecider({ read: journalFile.readNow, changes: journalFile.changes });
  /**
   * Holds are taken once in the journal. Their rows are written with the settlements,
   * after the requests went upstream: a request settled by then writes neither its hold's
   * row nor its release. A failed write leaves them to the next batch; they count as
   * held meanwhile.
   */
  const decideNow = (holds: NewHold[]): HoldResult[] => {
    const results = decideHolds!(holds, unwritten);
    const taken = holds.filter((_, i) => results[i]!.ok);
    if (taken.length === 0) return results;
    journal!.append(taken);
    const now = performance.now();
    for (const hold of taken) {
      unrecorded.push(hold);
      takenAt.push(now);
      unwritten.add(hold);
    }
    recordLater();
    return results;
  };
  const decide = createBatchQueue(decideNow);
  /** Holds taken and not yet settled: while none is, a request has nobody to batch with. */
  let open = 0;
  /**
   * A lone request decides in the call; with others in flight the turn's requests decide
   * together, in one read and one append (each a system call, bench/README.md).
   */
  const take = async (hold: NewHold): Promise<HoldResult> => {
    if (!journal) return first(await apply([{ kind: "hold", hold }]));
    const [result] = open > 0 ? await decide([hold]) : decideNow([hold]);
    if (result!.ok) open++;
    return result!;
  };
  /** `take` once the settlements waiting for their batch are written. */
  const takeAfterSettling = async (hold: NewHold): Promise<HoldResult> => {
    if (!journal) return first(await apply([{ kind: "hold", hold }], "after-deferred"));
    await apply([], "after-deferred");
    return await take(hold);
  };
  /** Settlement batches queued and not yet done. */
  let settling = 0;
  /**
   * Each settlement of a failed batch tried alone (unless the database is unavailable,
   * which fails them all): the ones that fail again, with their errors.
   */
  const failuresOf = async (
    jobs: readonly SettleJob[],
    error: unknown,
  ): Promise<SettlementFailure[]> => {
    if (isSqliteUnavailable(error)) {
      const unavailable = new DatabaseUnavailableError(error);
      return jobs.map(({ settle }) => ({ settle, error: unavailable }));
    }
    const outcomes = await Promise.all(jobs.map((job) =>
      guard(apply([job])).then(
        () => undefined,
        (error: unknown): SettlementFailure => ({ settle: job.settle, error }),
      )
    ));
    return outcomes.filter((outcome) => outcome !== undefined);
  };
  /** The settlements of the next deferred batch: one job of the queue for them all. */
  const settlementBatch = (jobs: SettleJob[]): Promise<readonly SettlementFailure[]> => {
    settling++;
    return apply(jobs, "deferred").then(
      () => (settling--, NO_FAILURES),
      (error) => (settling--, failuresOf(jobs, error)),
    );
  };
  let journalTaken = false;
  /**
   * Takes the journal. What its dead owner left out of the database is written now, under
   * the owner's instance, whose holds recovery then interrupts (recovery.ts).
   */
  const takeJournal = async () => {
    journalTaken = true;
    const taken = takeHoldJournal(journalFile!.path);
    if (!taken) return;
    const inTable = await presentHolds(client, taken.leftover.map((hold) => hold.id));
    const missing = taken.leftover.filter((hold) => !inTable.has(hold.id));
    await apply(missing.map((hold) => ({ kind: "record", hold })));
    taken.journal.committed();
    journal = taken.journal;
  };
  return {
    async takeHold(hold) {
      const result = await guard(take(hold));
      // Refused: settlements waiting for their batch may release what it lacks (a client
      // sending its next request as soon as the last answer came).
      if (result.ok || settling === 0) return result;
      return await guard(takeAfterSettling(hold));
    },
    settleHold(settle) {
      if (open > 0) open--;
      // A settlement waits ~50 ms for its batch, so what it keeps survives scavenges and is
      // promoted: the settlements of a batch share its job and its promise, where one of
      // each a settlement (and their reactions) made ~1 KB more a request (bench/README.md).
      if (waiting === undefined) {
        const jobs: SettleJob[] = [];
        waiting = { jobs, done: settlementBatch(jobs) };
      }
      waiting.jobs.push({ kind: "settle", settle });
      return waiting.done;
    },
    async flush() {
      if (unrecorded.length === 0) return;
      flushes++;
      try {
        await guard(apply([], "after-deferred"));
      } finally {
        flushes--;
      }
    },
    async heartbeat(instance) {
      await guard(registerInstance(client, instance));
      if (journalFile !== undefined && !journalTaken) {
        await guard(takeJournal());
      }
      return instance.heartbeatAt;
    },
    listInstances: () => guard(listInstances(client)),
    removeInstances: (ids) => guard(removeInstances(client, ids)),
    findReleasableHolds: (now, dead) => guard(findReleasableHolds(client, now, dead)),
    interruptHolds: async (ids, now) =>
      void await guard(interruptJobs(client, ids, now).then((jobs) => apply(jobs))),
    async findKey(hash) {
      const { rows } = await guard(client.execute({ sql: KEY_BY_HASH, args: [hash] }));
      return rows[0] as KeyWithAccount | undefined;
    },
    async hasKeys() {
      const { rows } = await guard(client.execute(HAS_KEYS_SQL));
      return Number(rows[0]?.found) === 1;
    },
    async ping() {
      await guard(client.execute("SELECT 1"));
    },
    close() {
      clearTimeout(recordTimer);
      recordTimer = undefined;
      journal?.close();
      journal = undefined;
    },
  };
}
