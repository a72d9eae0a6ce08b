-- Stored responses (/v1/responses with `store`): each answer with every input item that
-- led to it, resolved (a previous response's input and output come first), so that a
-- chain of any length is one read. Items are also kept by id, for `item_reference`.
CREATE TABLE stored_responses (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  -- The response object as the client got it (JSON).
  response TEXT NOT NULL,
  -- Every input item that led to it, with ids (JSON array).
  input_items TEXT NOT NULL
);
CREATE INDEX stored_responses_expiry ON stored_responses (expires_at);

CREATE TABLE stored_items (
  account_id INTEGER NOT NULL,
  id TEXT NOT NULL,
  response_id TEXT NOT NULL,
  item TEXT NOT NULL,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX stored_items_by_response ON stored_items (response_id);
