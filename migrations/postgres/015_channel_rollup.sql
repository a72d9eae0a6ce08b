-- Channel health over time (issue 44), as migrations/014_channel_rollup.sql on SQLite: the
-- upstream attempts of the ledger rows rolled up by minute and channel, with the same
-- columns and the same counting rules. Here a trigger on the ledger writes them, in the
-- transaction that inserts the row, whichever function inserts it (settle_hold_row,
-- interrupt_hold: rows without attempts are skipped).
--
-- `shard` is the writing connection's backend pid: no two transactions running at once
-- have the same, so a settlement never waits for another node's on a channel's minute (a
-- batch settles rows of several channels in no fixed channel order: rows shared by all
-- nodes would queue every batch there, and could deadlock two). A minute has a row per
-- connection that settled in it (a pool's worth per node at most); reads sum them.
CREATE TABLE channel_rollup (
  minute BIGINT NOT NULL,
  channel TEXT NOT NULL,
  shard INTEGER NOT NULL,
  attempts BIGINT NOT NULL DEFAULT 0,
  ok BIGINT NOT NULL DEFAULT 0,
  errors BIGINT NOT NULL DEFAULT 0,
  ttfb_ms BIGINT NOT NULL DEFAULT 0,
  ttfb_0 BIGINT NOT NULL DEFAULT 0,
  ttfb_1 BIGINT NOT NULL DEFAULT 0,
  ttfb_2 BIGINT NOT NULL DEFAULT 0,
  ttfb_3 BIGINT NOT NULL DEFAULT 0,
  ttfb_4 BIGINT NOT NULL DEFAULT 0,
  ttfb_5 BIGINT NOT NULL DEFAULT 0,
  ttfb_6 BIGINT NOT NULL DEFAULT 0,
  ttfb_7 BIGINT NOT NULL DEFAULT 0,
  ttfb_8 BIGINT NOT NULL DEFAULT 0,
  ttfb_9 BIGINT NOT NULL DEFAULT 0,
  last_ok_at BIGINT NOT NULL DEFAULT 0,
  last_error_at BIGINT NOT NULL DEFAULT 0,
  last_error_status INTEGER,
  last_error TEXT,
  PRIMARY KEY (minute, channel, shard)
);

-- Adds a ledger row's attempts (billing/attempt_record.ts, as JSON) to their channels'
-- minute: the rules of src/db/channel_rollup_rows.ts, which SQLite's batches follow.
CREATE FUNCTION roll_up_channels() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  WITH attempts AS (
    SELECT a.n, a.channel, a.ttfb, a.status, left(a.reason, 500) AS reason,
      a.outcome = 'ok' AS ok,
      a.outcome IN ('failed', 'cut')
        AND COALESCE(a.kind, '') NOT IN ('client_gone', 'shutdown')
        AND COALESCE(a.status, 0) NOT IN (400, 404, 413, 422) AS error
    FROM (
      SELECT e.ordinality AS n, e.value->>'channel' AS channel, e.value->>'outcome' AS outcome,
        e.value->>'kind' AS kind, (e.value->>'status')::INTEGER AS status,
        e.value->>'reason' AS reason, round((e.value->>'ttfbMs')::NUMERIC)::BIGINT AS ttfb
      FROM jsonb_array_elements(NEW.attempt_log::JSONB) WITH ORDINALITY AS e
    ) a
  )
  INSERT INTO channel_rollup AS r (minute, channel, shard, attempts, ok, errors, ttfb_ms,
      ttfb_0, ttfb_1, ttfb_2, ttfb_3, ttfb_4, ttfb_5, ttfb_6, ttfb_7, ttfb_8, ttfb_9,
      last_ok_at, last_error_at, last_error_status, last_error)
    SELECT NEW.created_at - NEW.created_at % 60000, channel, pg_backend_pid(), count(*),
      count(*) FILTER (WHERE ok), count(*) FILTER (WHERE error), COALESCE(sum(ttfb), 0),
      count(*) FILTER (WHERE ttfb < 100),
      count(*) FILTER (WHERE ttfb >= 100 AND ttfb < 250),
      count(*) FILTER (WHERE ttfb >= 250 AND ttfb < 500),
      count(*) FILTER (WHERE ttfb >= 500 AND ttfb < 1000),
      count(*) FILTER (WHERE ttfb >= 1000 AND ttfb < 2000),
      count(*) FILTER (WHERE ttfb >= 2000 AND ttfb < 4000),
      count(*) FILTER (WHERE ttfb >= 4000 AND ttfb < 8000),
      count(*) FILTER (WHERE ttfb >= 8000 AND ttfb < 16000),
      count(*) FILTER (WHERE ttfb >= 16000 AND ttfb < 32000),
      count(*) FILTER (WHERE ttfb >= 32000),
      CASE WHEN bool_or(ok) THEN NEW.created_at ELSE 0 END,
      CASE WHEN bool_or(error) THEN NEW.created_at ELSE 0 END,
      (array_agg(status ORDER BY n DESC) FILTER (WHERE error))[1],
      (array_agg(reason ORDER BY n DESC) FILTER (WHERE error))[1]
    FROM attempts
    GROUP BY channel
    ORDER BY channel
  ON CONFLICT (minute, channel, shard) DO UPDATE SET
    attempts = r.attempts + excluded.attempts,
    ok = r.ok + excluded.ok,
    errors = r.errors + excluded.errors,
    ttfb_ms = r.ttfb_ms + excluded.ttfb_ms,
    ttfb_0 = r.ttfb_0 + excluded.ttfb_0,
    ttfb_1 = r.ttfb_1 + excluded.ttfb_1,
    ttfb_2 = r.ttfb_2 + excluded.ttfb_2,
    ttfb_3 = r.ttfb_3 + excluded.ttfb_3,
    ttfb_4 = r.ttfb_4 + excluded.ttfb_4,
    ttfb_5 = r.ttfb_5 + excluded.ttfb_5,
    ttfb_6 = r.ttfb_6 + excluded.ttfb_6,
    ttfb_7 = r.ttfb_7 + excluded.ttfb_7,
    ttfb_8 = r.ttfb_8 + excluded.ttfb_8,
    ttfb_9 = r.ttfb_9 + excluded.ttfb_9,
    last_ok_at = GREATEST(r.last_ok_at, excluded.last_ok_at),
    last_error_status = CASE WHEN excluded.last_error_at > 0
      AND excluded.last_error_at >= r.last_error_at
      THEN excluded.last_error_status ELSE r.last_error_status END,
    last_error = CASE WHEN excluded.last_error_at > 0
      AND excluded.last_error_at >= r.last_error_at
      THEN excluded.last_error ELSE r.last_error END,
    last_error_at = GREATEST(r.last_error_at, excluded.last_error_at);
  RETURN NULL;
END
$$;

CREATE TRIGGER ledger_channel_rollup AFTER INSERT ON ledger
  FOR EACH ROW WHEN (NEW.attempt_log IS NOT NULL) EXECUTE FUNCTION roll_up_channels();
