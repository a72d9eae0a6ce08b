-- A hold grows before a dearer fallback model or a stream rescue (`extend_hold`), exactly
-- as a hold is taken: what both check and hold on an account and a key is `reserve`, which
-- `take_hold` (migrations/postgres/001_init.sql) now calls too, unchanged in effect.

-- Holds `p_micros` on the account and `p_tokens` on the key when both cover them; else
-- returns why not (`balance` or `key_quota`) and what was available, as seen by the check
-- that refused, and holds nothing. The first conditional UPDATE is exact at READ
-- COMMITTED (it re-checks the newest row version under its lock); when it matches
-- nothing, the row is locked and read once more, so the refusal and its figures are one
-- locked state. A key without a quota holds no tokens: `reserved_tokens` is what it holds.
CREATE FUNCTION reserve(
  p_account_id BIGINT, p_key_id TEXT, p_micros BIGINT, p_tokens BIGINT,
  OUT refusal TEXT, OUT available BIGINT, OUT reserved_tokens BIGINT
) LANGUAGE plpgsql AS $$
DECLARE
  v_available BIGINT;
  v_unlimited INTEGER;
  v_quota BIGINT;
BEGIN
  reserved_tokens := 0;
  -- Holding no money takes no lock on the account.
  IF p_micros > 0 THEN
    UPDATE accounts SET held_micros = held_micros + p_micros
      WHERE id = p_account_id AND (unlimited = 1 OR balance_micros - held_micros >= p_micros);
    IF NOT FOUND THEN
      SELECT balance_micros - held_micros, unlimited INTO v_available, v_unlimited
        FROM accounts WHERE id = p_account_id FOR NO KEY UPDATE;
      IF v_unlimited = 1 OR v_available >= p_micros THEN
        UPDATE accounts SET held_micros = held_micros + p_micros WHERE id = p_account_id;
      ELSE
        refusal := 'balance';
        available := GREATEST(COALESCE(v_available, 0), 0);
        RETURN;
      END IF;
    END IF;
  END IF;

  SELECT quota_tokens INTO v_quota FROM api_keys WHERE id = p_key_id;
  IF v_quota IS NOT NULL THEN
    UPDATE api_keys SET held_tokens = held_tokens + p_tokens
      WHERE id = p_key_id AND quota_tokens - used_tokens - held_tokens >= p_tokens;
    IF NOT FOUND THEN
      SELECT quota_tokens - used_tokens - held_tokens INTO v_available
        FROM api_keys WHERE id = p_key_id FOR NO KEY UPDATE;
      IF v_available >= p_tokens THEN
        UPDATE api_keys SET held_tokens = held_tokens + p_tokens WHERE id = p_key_id;
      ELSE
        -- Undo the account's part; its row stays locked until commit, so nobody saw it.
        IF p_micros > 0 THEN
          UPDATE accounts SET held_micros = held_micros - p_micros WHERE id = p_account_id;
        END IF;
        refusal := 'key_quota';
        available := GREATEST(COALESCE(v_available, 0), 0);
        RETURN;
      END IF;
    END IF;
    reserved_tokens := p_tokens;
  END IF;
END
$$;

-- take_hold as before, its checks now `reserve`'s.
CREATE OR REPLACE FUNCTION take_hold(
  p_id TEXT, p_instance_id TEXT, p_account_id BIGINT, p_key_id TEXT, p_amount_micros BIGINT,
  p_tokens BIGINT, p_ttl_ms BIGINT, p_request_id TEXT, p_model TEXT, p_entry_point TEXT,
  p_stream INTEGER, p_input_tokens BIGINT, p_input_cost_micros BIGINT,
  OUT refusal TEXT, OUT available BIGINT
) LANGUAGE plpgsql AS $$
DECLARE
  r RECORD;
  v_now BIGINT;
BEGIN
  SELECT * INTO r FROM reserve(p_account_id, p_key_id, p_amount_micros, p_tokens);
  IF r.refusal IS NOT NULL THEN
    refusal := r.refusal;
    available := r.available;
    RETURN;
  END IF;
  v_now := tollgate_now();
  INSERT INTO holds (id, instance_id, account_id, key_id, amount_micros, tokens, created_at,
      expires_at, request_id, model, entry_point, stream, input_tokens, input_cost_micros)
    VALUES (p_id, p_instance_id, p_account_id, p_key_id, p_amount_micros, r.reserved_tokens,
      v_now, v_now + p_ttl_ms, p_request_id, p_model, p_entry_point, p_stream, p_input_tokens,
      p_input_cost_micros);
END
$$;

-- Grows a hold by what `reserve` grants; its settlement then releases the whole. Rows are
-- locked in the order settlements lock them (hold, account, key), so an extension and a
-- settlement never deadlock. A hold already gone covers nothing more: a `balance` refusal
-- with nothing available.
CREATE FUNCTION extend_hold(
  p_hold_id TEXT, p_extra_micros BIGINT, p_extra_tokens BIGINT,
  OUT refusal TEXT, OUT available BIGINT
) LANGUAGE plpgsql AS $$
DECLARE
  h holds%ROWTYPE;
  r RECORD;
BEGIN
  SELECT * INTO h FROM holds WHERE id = p_hold_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    refusal := 'balance';
    available := 0;
    RETURN;
  END IF;
  SELECT * INTO r FROM reserve(h.account_id, h.key_id, p_extra_micros, p_extra_tokens);
  refusal := r.refusal;
  available := r.available;
  IF r.refusal IS NULL THEN
    UPDATE holds SET amount_micros = amount_micros + p_extra_micros,
        tokens = tokens + r.reserved_tokens
      WHERE id = p_hold_id;
  END IF;
END
$$;
