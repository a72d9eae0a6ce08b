-- Usage rolled up by hour and by day (UTC), kept by the batch that writes the ledger
-- (src/db/holds.ts) in the same transaction as its rows, so that usage over months reads a
-- few thousand rows instead of millions: one row per hour (or day: its first millisecond),
-- account, key and model. A request counts in the hour and day of its ledger row's
-- `created_at`; `errors` counts the rows whose status is `failed` or `interrupted`;
-- `cost_micros` is what the rows record. The hours serve hourly series; the days serve sums
-- by account, key and model over long ranges, and daily series.
CREATE TABLE usage_hourly (
  hour INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  requests INTEGER NOT NULL DEFAULT 0,
  errors INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cached_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  cost_micros INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, account_id, key_id, model)
) WITHOUT ROWID;
-- The hours again by account alone, for series over every key and model (the dashboard's
-- overview): one row per hour and active account, however many keys and models they use.
CREATE TABLE usage_hourly_accounts (
  hour INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  requests INTEGER NOT NULL DEFAULT 0,
  errors INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cached_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  cost_micros INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, account_id)
) WITHOUT ROWID;
CREATE TABLE usage_daily (
  day INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  requests INTEGER NOT NULL DEFAULT 0,
  errors INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cached_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  cost_micros INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, account_id, key_id, model)
) WITHOUT ROWID;
INSERT INTO usage_hourly (hour, account_id, key_id, model, requests, errors, input_tokens,
    output_tokens, cached_tokens, cache_write_tokens, cost_micros)
  SELECT created_at - created_at % 3600000, account_id, key_id, model, count(*),
    sum(CASE WHEN status IN ('failed', 'interrupted') THEN 1 ELSE 0 END), sum(input_tokens),
    sum(output_tokens), sum(cached_tokens), sum(cache_write_tokens), sum(cost_micros)
  FROM ledger
  GROUP BY created_at - created_at % 3600000, account_id, key_id, model;
INSERT INTO usage_hourly_accounts (hour, account_id, requests, errors, input_tokens,
    output_tokens, cached_tokens, cache_write_tokens, cost_micros)
  SELECT hour, account_id, sum(requests), sum(errors), sum(input_tokens), sum(output_tokens),
    sum(cached_tokens), sum(cache_write_tokens), sum(cost_micros)
  FROM usage_hourly
  GROUP BY hour, account_id;
INSERT INTO usage_daily (day, account_id, key_id, model, requests, errors, input_tokens,
    output_tokens, cached_tokens, cache_write_tokens, cost_micros)
  SELECT hour - hour % 86400000, account_id, key_id, model, sum(requests), sum(errors),
    sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(cache_write_tokens),
    sum(cost_micros)
  FROM usage_hourly
  GROUP BY hour - hour % 86400000, account_id, key_id, model;

-- An admin key may use the admin API and the dashboard (`key create --admin`). A key's last
-- use is the time of its latest settlement, written with the key's totals (no write more).
ALTER TABLE api_keys ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
UPDATE api_keys SET last_used_at = (SELECT max(created_at) FROM ledger WHERE key_id = api_keys.id);
