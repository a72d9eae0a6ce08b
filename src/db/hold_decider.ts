/**
 * Holds decided without a transaction, by the serving process that owns a file's hold
 * journal: each against its account's and key's totals as last read, kept while the
 * database is unchanged since (its data version counts the other connections' commits,
 * `total_changes()` this connection's own writes), with the holds taken and not yet
 * written counted as held. A decision then costs one small read where a write
 * transaction's locks and reads cost several times as much (bench/README.md).
 */
import { accountTotals, keyTotals, take, totalsReads, totalsRows } from "./holds.ts";
import type { ReadNow } from "./sql_client.ts";
import type { HoldResult, NewHold } from "./store.ts";

/**
 * What tells whether the database changed since the totals were read. Two statements:
 * the pragma itself costs 2.7 µs where its table-valued form costs 4.1-4.9, and
 * `total_changes()` takes no lock (0.6 µs).
 */
const STAMP = ["PRAGMA data_version", "SELECT total_changes() AS changes"];

type Row = Record<string, unknown>;

/**
 * What the holds taken and not yet written hold, by account (micro-USD) and by key
 * (tokens): kept as running sums, so that a decision costs the same however many holds
 * wait for their batch (at 32 concurrent requests, a batch's ~200 settled ones).
 */
export class UnwrittenHolds {
  readonly micros = new Map<number, number>();
  readonly tokens = new Map<string, number>();

  /** Counts a hold taken. */
  add(hold: NewHold): void {
    this.#move(hold, 1);
  }

  /** Uncounts a hold now written into the database. */
  remove(hold: NewHold): void {
    this.#move(hold, -1);
  }

  #move({ accountId, keyId, amountMicros, tokens }: NewHold, sign: number): void {
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
export type HoldDecider = (holds: readonly NewHold[], unwritten: UnwrittenHolds) => HoldResult[];

/** A decider reading through `read`, a file's connection. */
export function createHoldDecider(read: ReadNow): HoldDecider {
  let stamp = "";
  /** The rows of the accounts and keys read since the database last changed. */
  const accounts = new Map<number, Row>();
  const keys = new Map<string, Row>();
  return (holds, unwritten) => {
    const [version, changes] = read(STAMP);
    const now = `${version!.rows[0]!.data_version}:${changes!.rows[0]!.changes}`;
    if (now !== stamp) {
      accounts.clear();
      keys.clear();
      stamp = now;
    }
    const missing = {
      accounts: new Set(holds.map((h) => h.accountId).filter((id) => !accounts.has(id))),
      keys: new Set(holds.map((h) => h.keyId).filter((id) => !keys.has(id))),
    };
    if (missing.accounts.size + missing.keys.size > 0) {
      // A row read after the stamp is as new as it or newer: the next stamp tells.
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
    return holds.map((hold) => take(hold, totals.accounts, totals.keys));
  };
}
