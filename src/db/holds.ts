/**
 * Holds and settlement as atomic batches. Each is one job of statements that runs in
 * one transaction (possibly beside other jobs, see write_queue.ts), and each checks
 * its conditions in SQL inside that transaction: concurrent requests can never both
 * spend the same money. The types are the store's (store.ts): this is its SQLite side.
 */
import type { ConditionalStatement, SqlClient, SqlStatement } from "./sql_client.ts";
import type { Write } from "./write_queue.ts";
import { type HoldResult, INTERRUPTED_REASON, type NewHold, type Settle } from "./store.ts";

const ACCOUNT_COVERS =
  "SELECT 1 FROM accounts WHERE id = ? AND (unlimited = 1 OR balance_micros - held_micros >= ?)";
const KEY_COVERS =
  "SELECT 1 FROM api_keys WHERE id = ? AND (quota_tokens IS NULL OR quota_tokens - used_tokens - held_tokens >= ?)";

/**
 * Takes a hold if the account's available balance and the key's quota both cover it:
 * one conditional insert, whose trigger raises the held amounts (001_init.sql). The
 * figures a refusal reports are read in the same transaction, so they are the ones
 * the insert saw, not those of a later moment.
 */
export async function takeHold(write: Write, hold: NewHold): Promise<HoldResult> {
  const [insert, figures] = await write([
    {
      sql: `INSERT INTO holds (id, instance_id, account_id, key_id, amount_micros, tokens,
              created_at, expires_at, request_id, model, entry_point, stream, input_tokens,
              input_cost_micros)
            SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
            WHERE EXISTS (${ACCOUNT_COVERS}) AND EXISTS (${KEY_COVERS})`,
      args: [
        hold.id,
        hold.instanceId,
        hold.accountId,
        hold.keyId,
        hold.amountMicros,
        hold.tokens,
        hold.createdAt,
        hold.expiresAt,
        hold.requestId,
        hold.model,
        hold.entryPoint,
        hold.stream ? 1 : 0,
        hold.inputTokens,
        hold.inputCostMicros,
        hold.accountId,
        hold.amountMicros,
        hold.keyId,
        hold.tokens,
      ],
    },
    figuresOf(hold),
  ]);
  if (insert?.rowsAffected === 1) return { ok: true };
  const row = figures?.rows[0];
  const availableMicros = Number(row?.available_micros ?? 0);
  if (Number(row?.unlimited ?? 0) !== 1 && availableMicros < hold.amountMicros) {
    return { ok: false, reason: "balance", availableMicros: Math.max(0, availableMicros) };
  }
  return {
    ok: false,
    reason: "key_quota",
    availableTokens: Math.max(0, Number(row?.available_tokens ?? 0)),
  };
}

/** The figures a refusal reports, read in the hold's transaction only if it was refused. */
function figuresOf(hold: NewHold): ConditionalStatement {
  return {
    onlyIfPreviousChangedNothing: true,
    sql: `SELECT a.balance_micros - a.held_micros AS available_micros, a.unlimited,
            k.quota_tokens IS NULL AS unlimited_tokens,
            k.quota_tokens - k.used_tokens - k.held_tokens AS available_tokens
          FROM accounts a, api_keys k WHERE a.id = ? AND k.id = ?`,
    args: [hold.accountId, hold.keyId],
  };
}

/**
 * Writes the ledger row and releases the hold, in one transaction (deferred: it rides
 * with the next hold's); triggers debit the balance and add the key's tokens. The debit
 * never takes a balance below what other holds need (nor below zero): the row records
 * what was actually debited.
 */
export async function settleHold(write: Write, s: Settle): Promise<void> {
  await write(settleStatements(s), true);
}

const LEDGER_COLUMNS = `request_id, created_at, account_id, key_id, model, entry_point, channel,
  upstream_model, attempts, stream, status, reason, input_tokens, output_tokens, cached_tokens,
  cache_write_tokens, estimated, duration_ms, cost_micros`;

function ledgerValues(s: Settle): (string | number | null)[] {
  return [
    s.requestId,
    s.createdAt,
    s.accountId,
    s.keyId,
    s.model,
    s.entryPoint,
    s.channel,
    s.upstreamModel,
    s.attempts,
    s.stream ? 1 : 0,
    s.status,
    s.reason,
    s.inputTokens,
    s.outputTokens,
    s.cachedTokens,
    s.cacheWriteTokens,
    s.estimated ? 1 : 0,
    s.durationMs,
  ];
}

/**
 * The row's cost is clamped to what the account can pay beside its other holds, so
 * the debit (by the ledger trigger) never takes the balance below zero; deleting the
 * hold then releases it (by the holds trigger).
 */
function settleStatements(s: Settle): SqlStatement[] {
  return [
    {
      sql: `INSERT INTO ledger (${LEDGER_COLUMNS})
            SELECT ${"?, ".repeat(18)}
              CASE WHEN unlimited = 1 THEN ?
                   ELSE MAX(0, MIN(?, balance_micros - held_micros +
                     COALESCE((SELECT amount_micros FROM holds WHERE id = ?), 0))) END
            FROM accounts WHERE id = ?`,
      args: [...ledgerValues(s), s.costMicros, s.costMicros, s.holdId, s.accountId],
    },
    { sql: "DELETE FROM holds WHERE id = ?", args: [s.holdId] },
  ];
}

/**
 * Turns holds no request will settle (left by a crashed server, or past their
 * deadline) into `interrupted` ledger rows, billed for the estimated input priced at
 * hold time (clamped like any settlement) and marked estimated; the holds go.
 */
export async function interruptHolds(
  write: Write,
  holdIds: readonly string[],
  now: number,
): Promise<void> {
  if (holdIds.length === 0) return;
  await write(holdIds.flatMap((id) => [
    {
      sql: `INSERT INTO ledger (${LEDGER_COLUMNS})
            SELECT h.request_id, ?, h.account_id, h.key_id, h.model, h.entry_point, NULL, NULL,
              0, h.stream, 'interrupted', ?, h.input_tokens, 0, 0, 0, 1, ? - h.created_at,
              CASE WHEN a.unlimited = 1 THEN h.input_cost_micros
                   ELSE MAX(0, MIN(h.input_cost_micros,
                     a.balance_micros - a.held_micros + h.amount_micros)) END
            FROM holds h JOIN accounts a ON a.id = h.account_id WHERE h.id = ?`,
      args: [now, INTERRUPTED_REASON, now, id],
    },
    { sql: "DELETE FROM holds WHERE id = ?", args: [id] },
  ]));
}

/** Ids of holds past their expiry, or belonging to the given (dead) instances. */
export async function findReleasableHolds(
  client: SqlClient,
  now: number,
  deadInstances: readonly string[],
): Promise<string[]> {
  const placeholders = deadInstances.map(() => "?").join(", ");
  const result = await client.execute({
    sql: `SELECT id FROM holds WHERE expires_at <= ?${
      deadInstances.length ? ` OR instance_id IN (${placeholders})` : ""
    }`,
    args: [now, ...deadInstances],
  });
  return result.rows.map((row) => String(row.id));
}
