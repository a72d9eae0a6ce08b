/**
 * Holds decided without a transaction, by the serving process that owns a file's hold
 * journal: each against its account's and key's totals as last read, kept while the
 * database is unchanged since, with the holds taken and not yet written counted as held.
 * A decision then costs no read at all while nothing changed, where a write
 * transaction's locks and reads cost several times as much (bench/README.md).
 *
 * What changed is told by two counts (sql_client.ts): this connection's own writes,
 * counted as they run, so each one counts at the next decision; and the data version,
 * which counts the other connections' commits (the CLI's, another server's) but is a
 * read of its own, made at most every OTHERS_SEEN_WITHIN_MS. So another process's change
 * counts within that time, and at once for a refusal: a hold the totals refuse is
 * decided again on a fresh data version, so a top-up counts at the next request.
 */
import { type Reservation, take } from "./holds.ts";
import type { ChangeCounts, ReadNow } from "./sql_client.ts";
import type { HoldResult } from "./store.ts";
import { accountTotals, keyTotals, totalsReads, totalsRows } from "./totals.ts";

/**
 * How long a commit of another connection may go unseen by a decision that takes a hold.
 * Under load holds are decided hundreds of times a second, and reading the data version
 * and the connection's changes at each decision is a measurable share of a request's
 * cost (bench/README.md); once per interval keeps it small, and another process's commit
 * is still seen within it.
 */
export const OTHERS_SEEN_WITHIN_MS = 20;

type Row = Record<string, unknown>;

/**
 * What the holds taken and not yet written hold, by account (micro-USD) and by key
 * (tokens): kept as running sums, so that a decision costs the same however many holds
 * wait for their batch (under load, the hundreds a batch settles).
 */
export class UnwrittenHolds {
  readonly micros = new Map<number, number>();
  readonly tokens = new Map<string, number>();
  /** What they hold against accounts' and keys' budgets (micro-USD). */
  readonly accountBudgets = new Map<number, number>();
  readonly keyBudgets = new Map<string, number>();

  /** Counts a hold taken (or what a hold grew by). */
  add(hold: Reservation): void {
    this.#move(hold, 1);
  }

  /** Uncounts a hold now written into the database. */
  remove(hold: Reservation): void {
    this.#move(hold, -1);
  }

  #move(hold: Reservation, sign: number): void {
    const { accountId, keyId, amountMicros, tokens } = hold;
    if (hold.accountBudgetMicros) {
      moveIn(this.accountBudgets, accountId, sign * hold.accountBudgetMicros);
    }
    if (hold.keyBudgetMicros) moveIn(this.keyBudgets, keyId, sign * hold.keyBudgetMicros);
    const micros = (this.micros.get(accountId) ?? 0) + sign * amountMicros;
    const keyTokens = (this.tokens.get(keyId) ?? 0) + sign * tokens;
    // An account or key with nothing unwritten drops out: the maps stay as small as the set.
    if (micros === 0) this.micros.delete(accountId);
    else this.micros.set(accountId, micros);
    if (keyTokens === 0) this.tokens.delete(keyId);
    else this.tokens.set(keyId, keyTokens);
  }
}

/**
 * Decides holds in order against the totals and the holds taken but not yet written
 * (each counting the ones before it); writes nothing.
 */
export type HoldDecider = (
  holds: readonly Reservation[],
  unwritten: UnwrittenHolds,
) => HoldResult[];

/** A decider reading through a file's connection; `now` is performance.now but in tests. */
export function createHoldDecider(
  { read, changes, now = () => performance.now() }: {
    read: ReadNow;
    changes: ChangeCounts;
    now?: () => number;
  },
): HoldDecider {
  let own = -1;
  let others = -1;
  let othersReadAt = -Infinity;
  /** The rows of the accounts and keys read since the database last changed. */
  const accounts = new Map<number, Row>();
  const keys = new Map<string, Row>();
  /** Forgets the rows if the database changed since they were read; whether it did. */
  const forgetIfChanged = (at: number, readOthers: boolean): boolean => {
    const ownNow = changes.own();
    let othersNow = others;
    if (readOthers) {
      othersNow = changes.others();
      othersReadAt = at;
    }
    if (ownNow === own && othersNow === others) return false;
    own = ownNow;
    others = othersNow;
    accounts.clear();
    keys.clear();
    return true;
  };
  const decide = (holds: readonly Reservation[], unwritten: UnwrittenHolds) => {
    const missing = {
      accounts: new Set(holds.map((h) => h.accountId).filter((id) => !accounts.has(id))),
      keys: new Set(holds.map((h) => h.keyId).filter((id) => !keys.has(id))),
    };
    if (missing.accounts.size + missing.keys.size > 0) {
      // A row read now is as new as the counts or newer: the next change of them tells.
      const results = read(totalsReads(missing.accounts, missing.keys));
      const rows = totalsRows(results, missing.accounts.size, missing.keys.size);
      for (const row of rows.accounts) if (row) accounts.set(Number(row.id), row);
      for (const row of rows.keys) if (row) keys.set(String(row.id), row);
    }
    const totals = {
      accounts: accountTotals(holds.map((h) => accounts.get(h.accountId))),
      keys: keyTotals(holds.map((h) => keys.get(h.keyId))),
    };
    for (const [id, account] of totals.accounts) account.held += unwritten.micros.get(id) ?? 0;
    for (const [id, key] of totals.keys) key.held += unwritten.tokens.get(id) ?? 0;
    if (unwritten.accountBudgets.size + unwritten.keyBudgets.size > 0) {
      for (const [id, account] of totals.accounts) {
        account.budget.held += unwritten.accountBudgets.get(id) ?? 0;
      }
      for (const [id, key] of totals.keys) key.budget.held += unwritten.keyBudgets.get(id) ?? 0;
    }
    return holds.map((hold) => take(hold, totals.accounts, totals.keys));
  };
  return (holds, unwritten) => {
    const at = now();
    const fresh = at - othersReadAt >= OTHERS_SEEN_WITHIN_MS;
    forgetIfChanged(at, fresh);
    const results = decide(holds, unwritten);
    // A refusal on rows that may miss another process's top-up is made again on fresh ones.
    if (fresh || results.every((result) => result.ok)) return results;
    return forgetIfChanged(at, true) ? decide(holds, unwritten) : results;
  };
}

/** Adds `delta` to `id`'s sum, dropping a sum back at 0. */
function moveIn<K>(sums: Map<K, number>, id: K, delta: number): void {
  const sum = (sums.get(id) ?? 0) + delta;
  if (sum === 0) sums.delete(id);
  else sums.set(id, sum);
}
