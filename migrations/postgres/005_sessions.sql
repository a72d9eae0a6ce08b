-- Dashboard sessions: see migrations/008_sessions.sql.
CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  seen_at BIGINT NOT NULL
);
CREATE INDEX sessions_key ON sessions (key_id);
CREATE INDEX sessions_seen ON sessions (seen_at);
