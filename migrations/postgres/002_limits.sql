-- Rate and concurrency limits shared by every node of one database: requests and tokens
-- counted in one-second buckets on the database's clock (a sliding 60-second window is
-- the sum of the last 60), and one lease per admitted request of a scope with a
-- concurrency limit. A lease counts while its node's heartbeat is fresh and its deadline
-- has not passed, so a dead node's leases free themselves.
CREATE TABLE limit_buckets (
  scope TEXT NOT NULL,
  second BIGINT NOT NULL,
  requests INTEGER NOT NULL DEFAULT 0,
  tokens BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (scope, second)
);

CREATE TABLE limit_leases (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL,
  instance_id TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX limit_leases_scope ON limit_leases(scope);

-- How long a scope must wait (ms) until its window admits `p_need` more on top of what it
-- holds, given its limit; 0 when it admits them now.
CREATE FUNCTION limit_wait(p_scope TEXT, p_now BIGINT, p_limit BIGINT, p_need BIGINT, p_tokens BOOLEAN)
RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
  v_second BIGINT := p_now / 1000;
  v_used BIGINT;
  v_bucket RECORD;
BEGIN
  SELECT COALESCE(sum(CASE WHEN p_tokens THEN tokens ELSE requests END), 0) INTO v_used
    FROM limit_buckets WHERE scope = p_scope AND second > v_second - 60;
  IF v_used + p_need <= p_limit THEN RETURN 0; END IF;
  IF p_need > p_limit THEN RETURN -1; END IF; -- no wait would ever admit it
  FOR v_bucket IN
    SELECT second, CASE WHEN p_tokens THEN tokens ELSE requests END AS used
      FROM limit_buckets WHERE scope = p_scope AND second > v_second - 60 ORDER BY second
  LOOP
    v_used := v_used - v_bucket.used;
    IF v_used + p_need <= p_limit THEN
      RETURN GREATEST(1, (v_bucket.second + 60) * 1000 - p_now);
    END IF;
  END LOOP;
  RETURN 1000;
END;
$$;

-- The state of a scope's window for the x-ratelimit headers: used and ms until the
-- oldest counted second leaves it.
CREATE FUNCTION limit_state(p_scope TEXT, p_now BIGINT, p_tokens BOOLEAN)
RETURNS JSONB LANGUAGE sql AS $$
  SELECT jsonb_build_object(
    'used', COALESCE(sum(CASE WHEN p_tokens THEN tokens ELSE requests END), 0),
    'reset_ms', COALESCE((min(second) + 60) * 1000 - p_now, 0))
  FROM limit_buckets
  WHERE scope = p_scope AND second > p_now / 1000 - 60
    AND (CASE WHEN p_tokens THEN tokens ELSE requests END) > 0;
$$;

-- Admits a request under the limits of its scopes (`[{id, rpm?, tpm?, concurrency?}]`,
-- input tokens counted toward tpm), or refuses it: one round trip, exact across nodes
-- (each scope locked for the transaction, in a stable order). A refusal counts nothing.
CREATE FUNCTION take_limits(p_scopes JSONB, p_input BIGINT, p_lease TEXT, p_instance TEXT, p_lease_ms BIGINT)
RETURNS JSONB LANGUAGE plpgsql AS $$
DECLARE
  v_now BIGINT := tollgate_now();
  v_second BIGINT := v_now / 1000;
  v_scope JSONB;
  v_id TEXT;
  v_wait BIGINT;
  v_breaches JSONB := '[]'::JSONB;
  v_states JSONB := '[]'::JSONB;
  v_in_flight BIGINT;
BEGIN
  FOR v_scope IN SELECT value FROM jsonb_array_elements(p_scopes) ORDER BY value->>'id' LOOP
    PERFORM pg_advisory_xact_lock(hashtext('tollgate_limit:' || (v_scope->>'id')));
  END LOOP;
  FOR v_scope IN SELECT value FROM jsonb_array_elements(p_scopes) LOOP
    v_id := v_scope->>'id';
    IF v_scope ? 'rpm' THEN
      v_wait := limit_wait(v_id, v_now, (v_scope->>'rpm')::BIGINT, 1, false);
      IF v_wait <> 0 THEN
        v_breaches := v_breaches || jsonb_build_object('id', v_id, 'kind', 'rpm', 'wait_ms', v_wait);
      END IF;
    END IF;
    IF v_scope ? 'tpm' THEN
      v_wait := limit_wait(v_id, v_now, (v_scope->>'tpm')::BIGINT, p_input, true);
      IF v_wait <> 0 THEN
        v_breaches := v_breaches || jsonb_build_object('id', v_id, 'kind', 'tpm', 'wait_ms', v_wait);
      END IF;
    END IF;
    IF v_scope ? 'concurrency' THEN
      SELECT count(*) INTO v_in_flight FROM limit_leases l JOIN instances i ON i.id = l.instance_id
        WHERE l.scope = v_id AND l.expires_at > v_now AND i.heartbeat_at > v_now - 60000;
      IF v_in_flight >= (v_scope->>'concurrency')::BIGINT THEN
        v_breaches := v_breaches || jsonb_build_object('id', v_id, 'kind', 'concurrency', 'wait_ms', 1000);
      END IF;
    END IF;
  END LOOP;
  IF jsonb_array_length(v_breaches) = 0 THEN
    FOR v_scope IN SELECT value FROM jsonb_array_elements(p_scopes) LOOP
      v_id := v_scope->>'id';
      IF v_scope ? 'rpm' OR v_scope ? 'tpm' THEN
        INSERT INTO limit_buckets (scope, second, requests, tokens) VALUES (v_id, v_second, 1, p_input)
          ON CONFLICT (scope, second) DO UPDATE
          SET requests = limit_buckets.requests + 1, tokens = limit_buckets.tokens + p_input;
        DELETE FROM limit_buckets WHERE scope = v_id AND second <= v_second - 60;
      END IF;
      IF v_scope ? 'concurrency' THEN
        INSERT INTO limit_leases (id, scope, instance_id, expires_at)
          VALUES (p_lease || ':' || v_id, v_id, p_instance, v_now + p_lease_ms);
      END IF;
    END LOOP;
  END IF;
  FOR v_scope IN SELECT value FROM jsonb_array_elements(p_scopes) LOOP
    v_id := v_scope->>'id';
    v_states := v_states || jsonb_build_object('id', v_id,
      'requests', limit_state(v_id, v_now, false), 'tokens', limit_state(v_id, v_now, true));
  END LOOP;
  RETURN jsonb_build_object('ok', jsonb_array_length(v_breaches) = 0,
    'breaches', v_breaches, 'states', v_states);
END;
$$;

-- Counts a request's settled output tokens toward the tpm of its scopes.
CREATE FUNCTION settle_limits(p_scopes TEXT[], p_tokens BIGINT) RETURNS VOID LANGUAGE sql AS $$
  INSERT INTO limit_buckets (scope, second, requests, tokens)
    SELECT unnest(p_scopes), tollgate_now() / 1000, 0, p_tokens
  ON CONFLICT (scope, second) DO UPDATE SET tokens = limit_buckets.tokens + p_tokens;
$$;
