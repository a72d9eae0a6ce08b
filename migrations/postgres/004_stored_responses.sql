-- Stored responses (/v1/responses with `store`): see migrations/007_stored_responses.sql.
CREATE TABLE stored_responses (
  id TEXT PRIMARY KEY,
  account_id BIGINT NOT NULL,
  key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  response TEXT NOT NULL,
  input_items TEXT NOT NULL
);
CREATE INDEX stored_responses_expiry ON stored_responses (expires_at);

CREATE TABLE stored_items (
  account_id BIGINT NOT NULL,
  id TEXT NOT NULL,
  response_id TEXT NOT NULL,
  item TEXT NOT NULL,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX stored_items_by_response ON stored_items (response_id);
