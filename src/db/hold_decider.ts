/**
 * Holds decided without a transaction, by the serving process that owns a file's hold
 * journal: each against its account's and key's totals as last read, kept while the
 * database is unchanged since (its data version counts the other connections' commits,
 * `total_changes()` this connection's own writes), with the holds taken and not yet
 * written counted as held. A decision then costs one small read where a write
 * transaction's locks and reads cost several times as much (bench/README.md).
 */
import { accountTotals, countHeld, keyTotals, take, totalsReads, totalsRows } from "./holds.ts";
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
 * Decides holds in order against the totals and the holds `taken` but not yet written
 * (each counting the ones before it); writes nothing.
 */
export type HoldDecider = (holds: readonly NewHold[], taken: readonly NewHold[]) => HoldResult[];

/** A decider reading through `read`, a file's connection. */
export function createHoldDecider(read: ReadNow): HoldDecider {
  let stamp = "";
  /** The rows of the accounts and keys read since the database last changed. */
  const accounts = new Map<number, Row>();
  const keys = new Map<string, Row>();
  return (holds, taken) => {
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
    for (const earlier of taken) countHeld(earlier, totals.accounts, totals.keys);
    return holds.map((hold) => take(hold, totals.accounts, totals.keys));
  };
}
