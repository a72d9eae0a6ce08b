-- Failover (issue 40): a ledger row names the model that served beside the one asked (a
-- fallback's, or the same), and keeps each upstream attempt as JSON (channel, model,
-- outcome, status, reason, timings, tokens, cost; billing/attempt_record.ts). Rollups of
-- rows written from now on count the serving model.
ALTER TABLE ledger ADD COLUMN served_model TEXT;
ALTER TABLE ledger ADD COLUMN attempt_log TEXT;

-- settle_hold_row and settle_hold (migrations/postgres/003_usage_rollups.sql) take the two
-- new columns; the rollup counts the serving model. Dropped first: a new signature would
-- otherwise stand beside the old one.
DROP FUNCTION settle_hold(TEXT, BIGINT, TEXT, TEXT, BIGINT, TEXT, TEXT, TEXT, TEXT, INTEGER,
  INTEGER, TEXT, TEXT, BIGINT, BIGINT, BIGINT, BIGINT, INTEGER, BIGINT, BIGINT);
DROP FUNCTION settle_hold_row(TEXT, BIGINT, TEXT, TEXT, BIGINT, TEXT, TEXT, TEXT, TEXT,
  INTEGER, INTEGER, TEXT, TEXT, BIGINT, BIGINT, BIGINT, BIGINT, INTEGER, BIGINT, BIGINT);

CREATE FUNCTION settle_hold_row(
  p_hold_id TEXT, p_account_id BIGINT, p_key_id TEXT, p_request_id TEXT, p_created_at BIGINT,
  p_model TEXT, p_entry_point TEXT, p_channel TEXT, p_upstream_model TEXT,
  p_served_model TEXT, p_attempts INTEGER, p_attempt_log TEXT, p_stream INTEGER,
  p_status TEXT, p_reason TEXT, p_input_tokens BIGINT, p_output_tokens BIGINT,
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
      upstream_model, served_model, attempts, attempt_log, stream, status, reason,
      input_tokens, output_tokens, cached_tokens, cache_write_tokens, estimated, duration_ms,
      cost_micros)
    VALUES (p_request_id, p_created_at, p_account_id, p_key_id, p_model, p_entry_point,
      p_channel, p_upstream_model, p_served_model, p_attempts, p_attempt_log, p_stream,
      p_status, p_reason, p_input_tokens, p_output_tokens, p_cached_tokens,
      p_cache_write_tokens, p_estimated, p_duration_ms, v_charged);
  RETURN ROW(p_created_at, p_account_id, p_key_id, COALESCE(p_served_model, p_model),
    p_status, p_input_tokens, p_output_tokens, p_cached_tokens, p_cache_write_tokens,
    v_charged)::usage_row;
END
$$;

CREATE FUNCTION settle_hold(
  p_hold_id TEXT, p_account_id BIGINT, p_key_id TEXT, p_request_id TEXT, p_created_at BIGINT,
  p_model TEXT, p_entry_point TEXT, p_channel TEXT, p_upstream_model TEXT,
  p_served_model TEXT, p_attempts INTEGER, p_attempt_log TEXT, p_stream INTEGER,
  p_status TEXT, p_reason TEXT, p_input_tokens BIGINT, p_output_tokens BIGINT,
  p_cached_tokens BIGINT, p_cache_write_tokens BIGINT, p_estimated INTEGER,
  p_duration_ms BIGINT, p_cost_micros BIGINT
) RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
  PERFORM roll_up(ARRAY[settle_hold_row(p_hold_id, p_account_id, p_key_id, p_request_id,
    p_created_at, p_model, p_entry_point, p_channel, p_upstream_model, p_served_model,
    p_attempts, p_attempt_log, p_stream, p_status, p_reason, p_input_tokens, p_output_tokens,
    p_cached_tokens, p_cache_write_tokens, p_estimated, p_duration_ms, p_cost_micros)]);
END
$$;

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
        r.x->>'entry_point', r.x->>'channel', r.x->>'upstream_model', r.x->>'served_model',
        (r.x->>'attempts')::INTEGER, r.x->>'attempt_log', (r.x->>'stream')::INTEGER,
        r.x->>'status', r.x->>'reason', (r.x->>'input_tokens')::BIGINT,
        (r.x->>'output_tokens')::BIGINT, (r.x->>'cached_tokens')::BIGINT,
        (r.x->>'cache_write_tokens')::BIGINT, (r.x->>'estimated')::INTEGER,
        (r.x->>'duration_ms')::BIGINT, (r.x->>'cost_micros')::BIGINT);
    END IF;
  END LOOP;
  IF cardinality(v_rows) > 0 THEN
    PERFORM roll_up(v_rows);
  END IF;
END
$$;
