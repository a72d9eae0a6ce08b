-- Accounts, keys, holds and the ledger. Money is integer micro-USD (*_micros);
-- timestamps (*_at) are integer milliseconds since the Unix epoch, UTC.

CREATE TABLE accounts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  enabled INTEGER NOT NULL DEFAULT 1,
  unlimited INTEGER NOT NULL DEFAULT 0,
  balance_micros INTEGER NOT NULL DEFAULT 0 CHECK (balance_micros >= 0),
  held_micros INTEGER NOT NULL DEFAULT 0 CHECK (held_micros >= 0),
  created_at INTEGER NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  group_name TEXT NOT NULL,
  name TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  revoked INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER,
  quota_tokens INTEGER,
  used_tokens INTEGER NOT NULL DEFAULT 0,
  held_tokens INTEGER NOT NULL DEFAULT 0 CHECK (held_tokens >= 0),
  models TEXT,
  allow_ips TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX api_keys_account ON api_keys(account_id);

-- A serving process; holds belong to one, so a restart can release a crashed one's.
CREATE TABLE instances (
  id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
);

CREATE TABLE holds (
  id TEXT PRIMARY KEY,
  instance_id TEXT NOT NULL,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  key_id TEXT NOT NULL REFERENCES api_keys(id),
  amount_micros INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX holds_instance ON holds(instance_id);
CREATE INDEX holds_expires ON holds(expires_at);

CREATE TABLE ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  request_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  key_id TEXT NOT NULL REFERENCES api_keys(id),
  model TEXT NOT NULL,
  entry_point TEXT NOT NULL,
  channel TEXT,
  upstream_model TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  stream INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  reason TEXT,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cached_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  estimated INTEGER NOT NULL DEFAULT 0,
  cost_micros INTEGER NOT NULL DEFAULT 0,
  duration_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX ledger_created ON ledger(created_at);
CREATE INDEX ledger_account ON ledger(account_id, created_at);
CREATE INDEX ledger_key ON ledger(key_id, created_at);

-- Balances and quotas follow the ledger and the holds by trigger, inside the same
-- statement: a ledger row debits its account (unless unlimited) and adds its tokens
-- to its key; a hold raises what is held, and deleting it (settled, expired or left
-- by a crash) lowers it again. The request path then writes one row per step.
CREATE TRIGGER ledger_charges AFTER INSERT ON ledger BEGIN
  UPDATE accounts SET balance_micros = balance_micros - NEW.cost_micros
    WHERE id = NEW.account_id AND unlimited = 0 AND NEW.cost_micros > 0;
  UPDATE api_keys SET used_tokens = used_tokens + NEW.input_tokens + NEW.output_tokens
    WHERE id = NEW.key_id;
END;

CREATE TRIGGER holds_take AFTER INSERT ON holds BEGIN
  UPDATE accounts SET held_micros = held_micros + NEW.amount_micros WHERE id = NEW.account_id;
  UPDATE api_keys SET held_tokens = held_tokens + NEW.tokens WHERE id = NEW.key_id;
END;

CREATE TRIGGER holds_release AFTER DELETE ON holds BEGIN
  UPDATE accounts SET held_micros = held_micros - OLD.amount_micros WHERE id = OLD.account_id;
  UPDATE api_keys SET held_tokens = held_tokens - OLD.tokens WHERE id = OLD.key_id;
END;
