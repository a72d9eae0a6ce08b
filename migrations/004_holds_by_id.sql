-- The holds table keyed by its id alone (WITHOUT ROWID): one b-tree where there were two
-- (the table and its primary key's index), so every request's transaction writes one page
-- less (~7 us of a commit at concurrency 1; bench/README.md). Holds live only while their
-- request runs, so the copy is small. Dropping the old table drops its triggers without
-- firing them (nothing is released: src/db/migrate_test.ts); they are made again below.
CREATE TABLE holds_by_id (
  id TEXT PRIMARY KEY,
  instance_id TEXT NOT NULL,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  key_id TEXT NOT NULL REFERENCES api_keys(id),
  amount_micros INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  request_id TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  entry_point TEXT NOT NULL DEFAULT '',
  stream INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  input_cost_micros INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
INSERT INTO holds_by_id (id, instance_id, account_id, key_id, amount_micros, tokens, created_at,
    expires_at, request_id, model, entry_point, stream, input_tokens, input_cost_micros)
  SELECT id, instance_id, account_id, key_id, amount_micros, tokens, created_at, expires_at,
    request_id, model, entry_point, stream, input_tokens, input_cost_micros
  FROM holds;
DROP TABLE holds;
ALTER TABLE holds_by_id RENAME TO holds;
CREATE TRIGGER holds_take AFTER INSERT ON holds BEGIN
  UPDATE accounts SET held_micros = held_micros + NEW.amount_micros WHERE id = NEW.account_id;
  UPDATE api_keys SET held_tokens = held_tokens + NEW.tokens WHERE id = NEW.key_id;
END;
CREATE TRIGGER holds_release AFTER DELETE ON holds BEGIN
  UPDATE accounts SET held_micros = held_micros - OLD.amount_micros WHERE id = OLD.account_id;
  UPDATE api_keys SET held_tokens = held_tokens - OLD.tokens WHERE id = OLD.key_id;
END;
