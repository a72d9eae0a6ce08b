-- The request log's refusals (issue 42): one row per request refused before it reached
-- routing (no ledger row: 401, 403, 404, 405, 408, 413, 429, 503 model_not_found, a 400
-- before routing), written in batches by the serving process (src/observability/
-- refusal_log.ts) and removed after [observability] request_log_days. `created_at` is ms
-- since the epoch (UTC). `key_id` and `account` when the key was known; `key_prefix` the
-- first characters of a key that was not (never the whole secret). `http_status` is the
-- status the client got, `code` the error's code, `reason` its message. `count` is 1 but
-- for the one row per client address and minute that counts a flood of keyless refusals
-- (past 60 a minute from one address): its request id is that minute's first one counted.
CREATE TABLE refusals (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  request_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  key_id TEXT,
  key_prefix TEXT,
  account TEXT,
  entry_point TEXT,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  model TEXT,
  http_status INTEGER NOT NULL,
  code TEXT NOT NULL,
  reason TEXT NOT NULL,
  client_address TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  count INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX refusals_request_id ON refusals (request_id);
CREATE INDEX refusals_created_at ON refusals (created_at);
CREATE INDEX refusals_key ON refusals (key_id, created_at);
