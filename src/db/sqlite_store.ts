/**
 * The store on SQLite (a file, or a libSQL server): each hold, extension, settlement and
 * interruption is a step of a write transaction (hold_steps.ts), and those of one turn of
 * the event loop share one (group_commit.ts, database.ts). Each resolves once its transaction
 * committed, so a hold is in the database before its request goes upstream. One process
 * owns a file, so its own clock is the store's clock.
 */
import { extendHoldStep, interruptStep, settleStep, takeHoldStep } from "./hold_steps.ts";
import type { CommitStep, SqlClient } from "./sql_client.ts";
import { createStore } from "./sql_store.ts";
import { NO_FAILURES, type Store } from "./store.ts";

/** The store of a SQLite database on `client`, its steps committed by `commit`. */
export function createSqliteStore(client: SqlClient, commit: CommitStep): Store {
  return createStore(client, {
    clock: "process",
    takeHold: (hold) => commit(takeHoldStep(hold)),
    extendHold: (holdId, micros, tokens) => commit(extendHoldStep(holdId, micros, tokens)),
    settleHold: (settle) =>
      commit(settleStep(settle)).then(() => NO_FAILURES, (error) => [{ settle, error }]),
    async interruptHolds(holdIds, now) {
      for (const holdId of holdIds) await commit(interruptStep(holdId, now));
    },
  });
}
