-- Failover (issue 40): a ledger row names the model that served beside the one asked (a
-- fallback's, or the same), and keeps each upstream attempt as JSON (channel, model,
-- outcome, status, reason, timings, tokens, cost; billing/attempt_record.ts). Rollups of
-- rows written from now on count the serving model.
ALTER TABLE ledger ADD COLUMN served_model TEXT;
ALTER TABLE ledger ADD COLUMN attempt_log TEXT;
