-- Usage rolled up by hour and by day, UTC (as migrations/006_usage_rollups.sql on SQLite):
-- one row per hour or day (its first millisecond), account, key and model, and one per hour
-- and account, kept in the transaction that writes the ledger rows, with the figures the rows
-- record (the cost as charged). A batch rolls its rows up once, at its end, each table's rows
-- in their key's order. By then it holds the lock of every key it settled, and a key's rows
-- are only ever locked under its key's lock; an account's hour is locked in (hour, account)
-- order by every batch, after everything else it locks, so batches on one account queue
-- there and never deadlock.
CREATE TABLE usage_hourly (
  hour BIGINT NOT NULL,
  account_id BIGINT NOT NULL,
  key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  requests BIGINT NOT NULL DEFAULT 0,
  errors BIGINT NOT NULL DEFAULT 0,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  cached_tokens BIGINT NOT NULL DEFAULT 0,
  cache_write_tokens BIGINT NOT NULL DEFAULT 0,
  cost_micros BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, account_id, key_id, model)
);
CREATE TABLE usage_hourly_accounts (
  hour BIGINT NOT NULL,
  account_id BIGINT NOT NULL,
  requests BIGINT NOT NULL DEFAULT 0,
  errors BIGINT NOT NULL DEFAULT 0,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  cached_tokens BIGINT NOT NULL DEFAULT 0,
  cache_write_tokens BIGINT NOT NULL DEFAULT 0,
  cost_micros BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, account_id)
);
CREATE TABLE usage_daily (
  day BIGINT NOT NULL,
  account_id BIGINT NOT NULL,
  key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  requests BIGINT NOT NULL DEFAULT 0,
  errors BIGINT NOT NULL DEFAULT 0,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  cached_tokens BIGINT NOT NULL DEFAULT 0,
  cache_write_tokens BIGINT NOT NULL DEFAULT 0,
  cost_micros BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (day, account_id, key_id, model)
);
INSERT INTO usage_hourly (hour, account_id, key_id, model, requests, errors, input_tokens,
    output_tokens, cached_tokens, cache_write_tokens, cost_micros)
  SELECT created_at - created_at % 3600000, account_id, key_id, model, count(*),
    count(*) FILTER (WHERE status IN ('failed', 'interrupted')), sum(input_tokens),
    sum(output_tokens), sum(cached_tokens), sum(cache_write_tokens), sum(cost_micros)
  FROM ledger
  GROUP BY 1, 2, 3, 4;
INSERT INTO usage_hourly_accounts (hour, account_id, requests, errors, input_tokens,
    output_tokens, cached_tokens, cache_write_tokens, cost_micros)
  SELECT hour, account_id, sum(requests), sum(errors), sum(input_tokens), sum(output_tokens),
    sum(cached_tokens), sum(cache_write_tokens), sum(cost_micros)
  FROM usage_hourly
  GROUP BY 1, 2;
INSERT INTO usage_daily (day, account_id, key_id, model, requests, errors, input_tokens,
    output_tokens, cached_tokens, cache_write_tokens, cost_micros)
  SELECT hour - hour % 86400000, account_id, key_id, model, sum(requests), sum(errors),
    sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(cache_write_tokens),
    sum(cost_micros)
  FROM usage_hourly
  GROUP BY 1, 2, 3, 4;

-- An admin key may use the admin API and the dashboard; a key's last use is the time of its
-- latest settlement, set by the UPDATE that counts its tokens.
ALTER TABLE api_keys ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
UPDATE api_keys k SET last_used_at = (SELECT max(created_at) FROM ledger l WHERE l.key_id = k.id);

-- What a rollup needs of a ledger row, as the functions that write the row pass it on: the
-- rollups are summed from these, not read back from the ledger (a generic plan of that read,
-- made while the ledger was small, scanned it whole: bench/README.md).
CREATE TYPE usage_row AS (
  created_at BIGINT, account_id BIGINT, key_id TEXT, model TEXT, status TEXT,
  input_tokens BIGINT, output_tokens BIGINT, cached_tokens BIGINT, cache_write_tokens BIGINT,
  cost_micros BIGINT
);

-- Adds ledger rows to their hours' and days' rollups, in the rollups' key order.
CREATE FUNCTION roll_up(p_rows usage_row[]) RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
  WITH added AS (
    SELECT created_at - created_at % 3600000 AS hour, account_id, key_id, model,
      1 AS requests, CASE WHEN status IN ('failed', 'interrupted') THEN 1 ELSE 0 END AS errors,
      input_tokens, output_tokens, cached_tokens, cache_write_tokens, cost_micros
    FROM unnest(p_rows)
  ), hourly AS (
    INSERT INTO usage_hourly AS r (hour, account_id, key_id, model, requests, errors,
      input_tokens, output_tokens, cached_tokens, cache_write_tokens, cost_micros)
    SELECT hour, account_id, key_id, model, sum(requests), sum(errors), sum(input_tokens),
      sum(output_tokens), sum(cached_tokens), sum(cache_write_tokens), sum(cost_micros)
    FROM added
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (hour, account_id, key_id, model) DO UPDATE SET
      requests = r.requests + excluded.requests,
      errors = r.errors + excluded.errors,
      input_tokens = r.input_tokens + excluded.input_tokens,
      output_tokens = r.output_tokens + excluded.output_tokens,
      cached_tokens = r.cached_tokens + excluded.cached_tokens,
      cache_write_tokens = r.cache_write_tokens + excluded.cache_write_tokens,
      cost_micros = r.cost_micros + excluded.cost_micros
  ), hourly_accounts AS (
    INSERT INTO usage_hourly_accounts AS r (hour, account_id, requests, errors, input_tokens,
      output_tokens, cached_tokens, cache_write_tokens, cost_micros)
    SELECT hour, account_id, sum(requests), sum(errors), sum(input_tokens), sum(output_tokens),
      sum(cached_tokens), sum(cache_write_tokens), sum(cost_micros)
    FROM added
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (hour, account_id) DO UPDATE SET
      requests = r.requests + excluded.requests,
      errors = r.errors + excluded.errors,
      input_tokens = r.input_tokens + excluded.input_tokens,
      output_tokens = r.output_tokens + excluded.output_tokens,
      cached_tokens = r.cached_tokens + excluded.cached_tokens,
      cache_write_tokens = r.cache_write_tokens + excluded.cache_write_tokens,
      cost_micros = r.cost_micros + excluded.cost_micros
  )
  INSERT INTO usage_daily AS r (day, account_id, key_id, model, requests, errors,
      input_tokens, output_tokens, cached_tokens, cache_write_tokens, cost_micros)
    SELECT hour - hour % 86400000, account_id, key_id, model, sum(requests), sum(errors),
      sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(cache_write_tokens),
      sum(cost_micros)
    FROM added
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
  ON CONFLICT (day, account_id, key_id, model) DO UPDATE SET
    requests = r.requests + excluded.requests,
    errors = r.errors + excluded.errors,
    input_tokens = r.input_tokens + excluded.input_tokens,
    output_tokens = r.output_tokens + excluded.output_tokens,
    cached_tokens = r.cached_tokens + excluded.cached_tokens,
    cache_write_tokens = r.cache_write_tokens + excluded.cache_write_tokens,
    cost_micros = r.cost_micros + excluded.cost_micros;
END
$$;

-- settle_hold's work (migrations/postgres/001_init.sql) without the rollup, returning what
-- the rollup needs of the ledger row, so that a batch rolls its rows up together.
CREATE FUNCTION settle_hold_row(
  p_hold_id TEXT, p_account_id BIGINT, p_key_id TEXT, p_request_id TEXT, p_created_at BIGINT,
  p_model TEXT, p_entry_point TEXT, p_channel TEXT, p_upstream_model TEXT, p_attempts INTEGER,
  p_stream INTEGER, p_status TEXT, p_reason TEXT, p_input_tokens BIGINT, p_output_tokens BIGINT,
  p_cached_tokens BIGINT, p_cache_write_tokens BIGINT, p_estimated INTEGER,
  p_duration_ms BIGINT, p_cost_micros BIGINT
) RETURNS usage_row LANGUAGE plpgsql AS $$
DECLARE
  v_amount BIGINT;
  v_tokens BIGINT;
  v_charged BIGINT;
BEGIN
  DELETE FROM holds WHERE id = p_hold_id RETURNING amount_micros, tokens INTO v_amount, v_tokens;
  v_charged := charge_account(p_account_id, COALESCE(v_amount, 0), p_cost_micros);
  UPDATE api_keys
    SET used_tokens = used_tokens + p_input_tokens + p_output_tokens,
        held_tokens = held_tokens - COALESCE(v_tokens, 0),
        last_used_at = GREATEST(last_used_at, p_created_at)
    WHERE id = p_key_id;
  INSERT INTO ledger (request_id, created_at, account_id, key_id, model, entry_point, channel,
      upstream_model, attempts, stream, status, reason, input_tokens, output_tokens,
      cached_tokens, cache_write_tokens, estimated, duration_ms, cost_micros)
    VALUES (p_request_id, p_created_at, p_account_id, p_key_id, p_model, p_entry_point,
      p_channel, p_upstream_model, p_attempts, p_stream, p_status, p_reason, p_input_tokens,
      p_output_tokens, p_cached_tokens, p_cache_write_tokens, p_estimated, p_duration_ms,
      v_charged);
  RETURN ROW(p_created_at, p_account_id, p_key_id, p_model, p_status, p_input_tokens,
    p_output_tokens, p_cached_tokens, p_cache_write_tokens, v_charged)::usage_row;
END
$$;

-- One request's settlement, as before, now with its rollup.
CREATE OR REPLACE FUNCTION settle_hold(
  p_hold_id TEXT, p_account_id BIGINT, p_key_id TEXT, p_request_id TEXT, p_created_at BIGINT,
  p_model TEXT, p_entry_point TEXT, p_channel TEXT, p_upstream_model TEXT, p_attempts INTEGER,
  p_stream INTEGER, p_status TEXT, p_reason TEXT, p_input_tokens BIGINT, p_output_tokens BIGINT,
  p_cached_tokens BIGINT, p_cache_write_tokens BIGINT, p_estimated INTEGER,
  p_duration_ms BIGINT, p_cost_micros BIGINT
) RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
  PERFORM roll_up(ARRAY[settle_hold_row(p_hold_id, p_account_id, p_key_id, p_request_id,
    p_created_at, p_model, p_entry_point, p_channel, p_upstream_model, p_attempts, p_stream,
    p_status, p_reason, p_input_tokens, p_output_tokens, p_cached_tokens, p_cache_write_tokens,
    p_estimated, p_duration_ms, p_cost_micros)]);
END
$$;

-- An interrupted hold's row, as before, now with its rollup and its key's last use.
CREATE OR REPLACE FUNCTION interrupt_hold(p_hold_id TEXT, p_now BIGINT, p_reason TEXT)
RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
  h holds%ROWTYPE;
  v_charged BIGINT;
BEGIN
  DELETE FROM holds WHERE id = p_hold_id RETURNING * INTO h;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  v_charged := charge_account(h.account_id, h.amount_micros, h.input_cost_micros);
  UPDATE api_keys
    SET used_tokens = used_tokens + h.input_tokens, held_tokens = held_tokens - h.tokens,
        last_used_at = GREATEST(last_used_at, p_now)
    WHERE id = h.key_id;
  INSERT INTO ledger (request_id, created_at, account_id, key_id, model, entry_point, channel,
      upstream_model, attempts, stream, status, reason, input_tokens, output_tokens,
      cached_tokens, cache_write_tokens, estimated, duration_ms, cost_micros)
    VALUES (h.request_id, p_now, h.account_id, h.key_id, h.model, h.entry_point, NULL, NULL, 0,
      h.stream, 'interrupted', p_reason, h.input_tokens, 0, 0, 0, 1, p_now - h.created_at,
      v_charged);
  PERFORM roll_up(ARRAY[ROW(p_now, h.account_id, h.key_id, h.model, 'interrupted',
    h.input_tokens, 0, 0, 0, v_charged)::usage_row]);
END
$$;

-- The batch of one event-loop turn, as before; its ledger rows are rolled up at its end.
CREATE OR REPLACE FUNCTION apply_batch(p_items JSONB)
RETURNS TABLE (item BIGINT, refusal TEXT, available BIGINT) LANGUAGE plpgsql AS $$
DECLARE
  r RECORD;
  v RECORD;
  v_rows usage_row[] := '{}';
BEGIN
  FOR r IN
    SELECT e.ordinality AS position, e.value AS x
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e
      ORDER BY (e.value->>'account_id')::BIGINT, e.value->>'key_id', e.ordinality
  LOOP
    IF r.x->>'kind' = 'hold' THEN
      SELECT * INTO v FROM take_hold(r.x->>'id', r.x->>'instance_id',
        (r.x->>'account_id')::BIGINT, r.x->>'key_id', (r.x->>'amount_micros')::BIGINT,
        (r.x->>'tokens')::BIGINT, (r.x->>'ttl_ms')::BIGINT, r.x->>'request_id', r.x->>'model',
        r.x->>'entry_point', (r.x->>'stream')::INTEGER, (r.x->>'input_tokens')::BIGINT,
        (r.x->>'input_cost_micros')::BIGINT);
      item := r.position;
      refusal := v.refusal;
      available := v.available;
      RETURN NEXT;
    ELSE
      v_rows := v_rows || settle_hold_row(r.x->>'hold_id', (r.x->>'account_id')::BIGINT,
        r.x->>'key_id', r.x->>'request_id', (r.x->>'created_at')::BIGINT, r.x->>'model',
        r.x->>'entry_point', r.x->>'channel', r.x->>'upstream_model',
        (r.x->>'attempts')::INTEGER, (r.x->>'stream')::INTEGER, r.x->>'status',
        r.x->>'reason', (r.x->>'input_tokens')::BIGINT, (r.x->>'output_tokens')::BIGINT,
        (r.x->>'cached_tokens')::BIGINT, (r.x->>'cache_write_tokens')::BIGINT,
        (r.x->>'estimated')::INTEGER, (r.x->>'duration_ms')::BIGINT,
        (r.x->>'cost_micros')::BIGINT);
    END IF;
  END LOOP;
  IF cardinality(v_rows) > 0 THEN
    PERFORM roll_up(v_rows);
  END IF;
END
$$;
