/**
 * The migrations, in order. A static import list (not a directory scan) so that
 * `deno compile` embeds them. Shipped migrations are frozen: add a new file instead.
 */
import init from "./001_init.sql" with { type: "text" };
import interrupted from "./002_interrupted.sql" with { type: "text" };
import leanHolds from "./003_lean_holds.sql" with { type: "text" };
import holdsById from "./004_holds_by_id.sql" with { type: "text" };
import balancesByBatch from "./005_balances_by_batch.sql" with { type: "text" };
import usageRollups from "./006_usage_rollups.sql" with { type: "text" };
import postgresInit from "./postgres/001_init.sql" with { type: "text" };
import postgresLimits from "./postgres/002_limits.sql" with { type: "text" };
import postgresUsageRollups from "./postgres/003_usage_rollups.sql" with { type: "text" };
import storedResponses from "./007_stored_responses.sql" with { type: "text" };
import postgresStoredResponses from "./postgres/004_stored_responses.sql" with { type: "text" };
import sessions from "./008_sessions.sql" with { type: "text" };
import postgresSessions from "./postgres/005_sessions.sql" with { type: "text" };
import linkedResponses from "./010_linked_responses.sql" with { type: "text" };
import postgresLinkedResponses from "./postgres/010_linked_responses.sql" with { type: "text" };
import postgresExtendHold from "./postgres/011_extend_hold.sql" with { type: "text" };
import failover from "./011_failover.sql" with { type: "text" };
import postgresFailover from "./postgres/012_failover.sql" with { type: "text" };
import budgets from "./012_budgets.sql" with { type: "text" };
import postgresBudgets from "./postgres/013_budgets.sql" with { type: "text" };
import channelRollup from "./014_channel_rollup.sql" with { type: "text" };
import postgresChannelRollup from "./postgres/015_channel_rollup.sql" with { type: "text" };
import requestLog from "./015_request_log.sql" with { type: "text" };
import postgresRequestLog from "./postgres/016_request_log.sql" with { type: "text" };

/** One numbered migration: its name and its SQL. */
export interface Migration {
  name: string;
  sql: string;
}

/** Every SQLite migration, in the order it is applied. */
export const MIGRATIONS: readonly Migration[] = [
  { name: "001_init", sql: init },
  { name: "002_interrupted", sql: interrupted },
  { name: "003_lean_holds", sql: leanHolds },
  { name: "004_holds_by_id", sql: holdsById },
  { name: "005_balances_by_batch", sql: balancesByBatch },
  { name: "006_usage_rollups", sql: usageRollups },
  { name: "007_stored_responses", sql: storedResponses },
  { name: "008_sessions", sql: sessions },
  { name: "010_linked_responses", sql: linkedResponses },
  { name: "011_failover", sql: failover },
  { name: "012_budgets", sql: budgets },
  { name: "014_channel_rollup", sql: channelRollup },
  { name: "015_request_log", sql: requestLog },
];

/** Every PostgreSQL migration (migrations/postgres/), in the order it is applied. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  { name: "001_init", sql: postgresInit },
  { name: "002_limits", sql: postgresLimits },
  { name: "003_usage_rollups", sql: postgresUsageRollups },
  { name: "004_stored_responses", sql: postgresStoredResponses },
  { name: "005_sessions", sql: postgresSessions },
  { name: "010_linked_responses", sql: postgresLinkedResponses },
  { name: "011_extend_hold", sql: postgresExtendHold },
  { name: "012_failover", sql: postgresFailover },
  { name: "013_budgets", sql: postgresBudgets },
  { name: "015_channel_rollup", sql: postgresChannelRollup },
  { name: "016_request_log", sql: postgresRequestLog },
];
