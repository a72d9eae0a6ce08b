-- Budgets and alerts (issue 43). A key's and an account's own budget: `budget_mode` NULL
-- follows the config's default (a group's key_budget, [budgets] account), 'own' is
-- `budget_micros` each `budget_period`, 'none' is no budget at all. What is spent in the
-- current period is a counter kept at settlement (`budget_spent_micros`, since
-- `budget_period_start`, started afresh by the first settlement of a new period) beside
-- what holds in flight hold against the budget (`budget_held_micros`, as `held_micros`
-- holds against the balance); a hold records what it added to each, so its release takes
-- back exactly that. `budget_alert_ppm` is the highest threshold (parts per million of
-- the budget) announced this period and `budget_alert_limit_micros` the budget it was
-- judged against (a raised one re-arms the thresholds back under); an account's
-- `balance_alert_floor_micros` is the lowest floor of [alerts] balance_below_usd announced
-- since its last top-up.
ALTER TABLE accounts ADD COLUMN budget_mode TEXT;
ALTER TABLE accounts ADD COLUMN budget_micros INTEGER;
ALTER TABLE accounts ADD COLUMN budget_period TEXT;
ALTER TABLE accounts ADD COLUMN budget_period_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN budget_spent_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN budget_held_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN budget_alert_ppm INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN budget_alert_limit_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN balance_alert_floor_micros INTEGER;
ALTER TABLE api_keys ADD COLUMN budget_mode TEXT;
ALTER TABLE api_keys ADD COLUMN budget_micros INTEGER;
ALTER TABLE api_keys ADD COLUMN budget_period TEXT;
ALTER TABLE api_keys ADD COLUMN budget_period_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN budget_spent_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN budget_held_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN budget_alert_ppm INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN budget_alert_limit_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holds ADD COLUMN key_budget_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holds ADD COLUMN account_budget_micros INTEGER NOT NULL DEFAULT 0;

-- Top-ups and adjustments of an account, with their reasons and the balance after each.
CREATE TABLE account_entries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  created_at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  usd_micros INTEGER NOT NULL,
  reason TEXT,
  balance_micros INTEGER NOT NULL
);
CREATE INDEX account_entries_account ON account_entries(account_id, id);

-- The alerts' outbox: an event is written in the transaction that decides it (a
-- settlement, a refusal, a timer's or a channel incident's), with its facts (ids and
-- integers); a delivery worker then renders its `data` and gives it one delivery per
-- webhook that wants it (`expanded`). `dedupe`, when set, makes an event once only.
CREATE TABLE alert_events (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  scope TEXT,
  threshold_ppm INTEGER,
  created_at INTEGER NOT NULL,
  facts TEXT NOT NULL,
  data TEXT,
  expanded INTEGER NOT NULL DEFAULT 0,
  dedupe TEXT UNIQUE
);
CREATE INDEX alert_events_created ON alert_events(expanded, created_at);

-- One event's delivery to one webhook: `pending` until a 2xx (`delivered`) or 24 hours
-- of retries (`failed`); a node sends it only while it holds the claim (`claimed_until`).
CREATE TABLE alert_deliveries (
  event_id TEXT NOT NULL REFERENCES alert_events(id),
  webhook TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL,
  claimed_until INTEGER NOT NULL DEFAULT 0,
  claimed_by TEXT,
  last_error TEXT,
  delivered_at INTEGER,
  PRIMARY KEY (event_id, webhook)
);
CREATE INDEX alert_deliveries_due ON alert_deliveries(status, next_at);

-- One incident per channel: its state as the nodes last saw it, and the state last
-- announced (at most one event per channel every 10 minutes).
CREATE TABLE channel_incidents (
  channel TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  changed_at INTEGER NOT NULL,
  reason TEXT,
  reported_state TEXT NOT NULL DEFAULT 'up',
  reported_at INTEGER NOT NULL DEFAULT 0
);
