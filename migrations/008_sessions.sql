-- Dashboard sessions: a browser signed in with an API key holds a random token in an
-- HttpOnly cookie; only the token's SHA-256 is stored. A session belongs to its key, whose
-- state is checked on every request (a disabled, revoked or expired key ends it at once).
-- It ends after `seen_at` + the idle limit or `created_at` + the absolute limit
-- (src/admin/sessions.ts), or at sign-out. In the database, so that every node sharing it
-- knows every session.
CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  seen_at INTEGER NOT NULL
);
CREATE INDEX sessions_key ON sessions (key_id);
CREATE INDEX sessions_seen ON sessions (seen_at);
