/**
 * The store on SQLite (a file, or a libSQL server): holds, settlements and interruptions
 * as group-committed batches (holds.ts, write_queue.ts), settlements in a batch of their
 * own 50 ms on; the rest is the store every dialect shares (sql_store.ts). One process owns
 * a file, so its own clock is the store's clock.
 *
 * The file's serving process (the first to beat its heartbeat) takes the hold journal
 * beside it (hold_journal.ts): from then on a hold is decided without a transaction
 * (hold_decider.ts), appended to the journal before its request goes upstream, and its row
 * is written with the settlements once it is RECORD_AFTER_MS old, or never if it is
 * settled before. Each of these was kept because an A/B showed it worth keeping
 * (bench/README.md, "The store").
 */
import { createHoldDecider, UnwrittenHolds } from "./hold_decider.ts";
import { type HoldJournal, takeHoldJournal } from "./hold_journal.ts";
import { interruptJobs, presentHolds } from "./hold_recovery.ts";
import { type AccountingJob, accountingStep, extendStep, GONE, type Reservation } from "./holds.ts";
import type { SqliteConnection } from "./sql_client.ts";
import { createStore } from "./sql_store.ts";
import {
  DatabaseUnavailableError,
  type HoldBudgets,
  type HoldResult,
  type NewHold,
  NO_FAILURES,
  type SettlementFailure,
  type Store,
} from "./store.ts";
import { createBatchQueue, DEFERRED_MS } from "./write_queue.ts";

type SettleJob = Extract<AccountingJob, { kind: "settle" }>;

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
 * The store of a SQLite database on `connection`. Given a `journal` path (a file's, whose
 * connection reads synchronously and counts its changes), the first heartbeat takes the
 * hold journal there, unless another server owns it.
 */
export function createSqliteStore(
  connection: SqliteConnection,
  { journal: journalPath }: { journal?: string } = {},
): Store & { close(): void } {
  const { client } = connection;
  const journalFile = journalPath && connection.readNow && connection.changes
    ? { path: journalPath, readNow: connection.readNow, changes: connection.changes }
    : undefined;
  const run = async (jobs: AccountingJob[], committed?: () => void) =>
    await connection.transaction(accountingStep(jobs, committed));
  let journal: HoldJournal | undefined;
  /** Holds in the journal and not yet in the database, in the order taken (copies). */
  const unrecorded: NewHold[] = [];
  /** When each of them was taken (performance.now()), index for index. */
  const takenAt: number[] = [];
  /** What holds in the database grew by, not written yet. */
  let growths: { holdId: string; growth: Reservation }[] = [];
  /** The journal's holds not settled yet, unrecorded or not, by id. */
  const journalled = new Map<string, NewHold>();
  /** What unrecorded holds and unwritten growths hold, summed. */
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
  // A batch writes the journal's growths, and its holds it settles and those of age, first:
  // a settlement finds its hold, written or settled in the same batch.
  const apply = createBatchQueue(async (jobs: AccountingJob[]) => {
    const settled = new Set<string>();
    for (const job of jobs) if (job.kind === "settle") settled.add(job.settle.holdId);
    const now = performance.now();
    const recording = unrecorded.filter((hold, i) =>
      flushes > 0 || settled.has(hold.id) || now - takenAt[i]! >= RECORD_AFTER_MS
    );
    const growing = growths;
    if (recording.length === 0 && growing.length === 0) {
      // A timer may ring a little early: the holds it was set for come of age later.
      recordLater();
      return jobs.length === 0 ? [] : await run(jobs);
    }
    const written: AccountingJob[] = [
      ...recording.map((hold): AccountingJob => ({ kind: "record", hold })),
      ...growing.map(({ holdId, growth }): AccountingJob => ({ kind: "grow", holdId, growth })),
    ];
    const results = await run([...written, ...jobs], () => {
      const recorded = new Set(recording);
      let kept = 0;
      for (let i = 0; i < unrecorded.length; i++) {
        if (recorded.has(unrecorded[i]!)) {
          unwritten.remove(unrecorded[i]!);
          continue;
        }
        takenAt[kept] = takenAt[i]!;
        unrecorded[kept++] = unrecorded[i]!;
      }
      unrecorded.length = kept;
      takenAt.length = kept;
      for (const { growth } of growing) unwritten.remove(growth);
      growths = growths.slice(growing.length);
      journal?.committed(unrecorded);
      recordLater();
    });
    return results.slice(written.length);
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
    announceRefusals(holds, results);
    const taken = holds.filter((_, i) => results[i]!.ok).map((hold) => ({ ...hold }));
    if (taken.length === 0) return results;
    journal!.append(taken);
    const now = performance.now();
    for (const hold of taken) {
      unrecorded.push(hold);
      takenAt.push(now);
      unwritten.add(hold);
      journalled.set(hold.id, hold);
    }
    recordLater();
    return results;
  };
  const decide = createBatchQueue(decideNow);
  /**
   * A journalled hold grows as it was taken, decided at once: an unrecorded one in memory
   * (its row, when written, holds the whole), one in the database by a `grow` of the next
   * batch, counted as held until then. Neither needs the journal: a crash bills a hold for
   * its estimated input whatever it held.
   */
  const extendNow = (
    holdId: string,
    micros: number,
    tokens: number,
    budgets?: { micros: number; in: HoldBudgets },
  ): HoldResult => {
    const hold = journalled.get(holdId);
    if (!hold) return GONE;
    const growth = {
      accountId: hold.accountId,
      keyId: hold.keyId,
      ...growthOf(micros, tokens, budgets),
    };
    const [result] = decideHolds!([growth], unwritten);
    if (!result!.ok) return result!;
    if (unrecorded.includes(hold)) {
      unwritten.remove(hold);
      hold.amountMicros += micros;
      hold.tokens += tokens;
      hold.keyBudgetMicros = (hold.keyBudgetMicros ?? 0) + growth.keyBudgetMicros;
      hold.accountBudgetMicros = (hold.accountBudgetMicros ?? 0) + growth.accountBudgetMicros;
      unwritten.add(hold);
    } else {
      growths.push({ holdId, growth });
      unwritten.add(growth);
    }
    return result!;
  };
  /**
   * The `budget.exhausted` of holds the decider refused for a budget, written by the next
   * batch (once a period: it judges on the figures it reads).
   */
  const announceRefusals = (holds: readonly NewHold[], results: readonly HoldResult[]) => {
    results.forEach((result, i) => {
      if (result.ok || (result.reason !== "key_budget" && result.reason !== "account_budget")) {
        return;
      }
      apply([{ kind: "refused", hold: holds[i]!, result }]).catch(() => {});
    });
  };
  /** Holds taken and not yet settled: while none is, a request has nobody to batch with. */
  let open = 0;
  /**
   * A lone request decides in the call; with others in flight the turn's requests decide
   * together, in one read and one append (each a system call, bench/README.md).
   */
  const take = async (hold: NewHold): Promise<HoldResult> => {
    if (!journal) return (await apply([{ kind: "hold", hold }]))[0]!;
    const [result] = open > 0 ? await decide([hold]) : decideNow([hold]);
    if (result!.ok) open++;
    return result!;
  };
  /** `take` once the settlements waiting for their batch are written. */
  const takeAfterSettling = async (hold: NewHold): Promise<HoldResult> => {
    if (!journal) return (await apply([{ kind: "hold", hold }], "after-deferred"))[0]!;
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
    if (error instanceof DatabaseUnavailableError) {
      return jobs.map(({ settle }) => ({ settle, error }));
    }
    const outcomes = await Promise.all(jobs.map((job) =>
      apply([job]).then(
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
  const flush = async () => {
    if (unrecorded.length === 0 && growths.length === 0) return;
    flushes++;
    try {
      await apply([], "after-deferred");
    } finally {
      flushes--;
    }
  };
  const shared = createStore(client, {
    clock: "process",
    flush,
    async takeHold(hold) {
      const result = await take(hold);
      // Refused: settlements waiting for their batch may release what it lacks (a client
      // sending its next request as soon as the last answer came).
      if (result.ok || settling === 0) return result;
      return await takeAfterSettling(hold);
    },
    async extendHold(holdId, micros, tokens, budgets) {
      const growth = growthOf(micros, tokens, budgets);
      if (!journal) return await connection.transaction(extendStep(holdId, growth));
      const result = extendNow(holdId, micros, tokens, budgets);
      if (result.ok || settling === 0) return result;
      await apply([], "after-deferred");
      return extendNow(holdId, micros, tokens, budgets);
    },
    settleHold(settle) {
      if (open > 0) open--;
      journalled.delete(settle.holdId);
      // A settlement waits for its batch (DEFERRED_MS), so what it keeps survives scavenges
      // and is promoted: the settlements of a batch share its job and its promise, where one
      // of each a settlement (and their reactions) made the heap grow with every request
      // (bench/README.md).
      if (waiting === undefined) {
        const jobs: SettleJob[] = [];
        waiting = { jobs, done: settlementBatch(jobs) };
      }
      waiting.jobs.push({ kind: "settle", settle });
      return waiting.done;
    },
    interruptHolds: async (ids, now) => void await apply(await interruptJobs(client, ids, now)),
  });
  return {
    ...shared,
    async heartbeat(instance) {
      const at = await shared.heartbeat(instance);
      if (journalFile !== undefined && !journalTaken) await takeJournal();
      return at;
    },
    close() {
      clearTimeout(recordTimer);
      recordTimer = undefined;
      journal?.close();
      journal = undefined;
    },
  };
}

/** What a hold grows by: money, tokens, and its worst case on each budget in force. */
function growthOf(
  micros: number,
  tokens: number,
  budgets: { micros: number; in: HoldBudgets } | undefined,
) {
  return {
    amountMicros: micros,
    tokens,
    keyBudgetMicros: budgets?.in.key ? budgets.micros : 0,
    accountBudgetMicros: budgets?.in.account ? budgets.micros : 0,
    budgets: budgets?.in,
  };
}
