-- A hold carries what its request's ledger row needs if the request can never settle
-- it (its server crashed, or it outlived its deadline): that row is written with status
-- `interrupted`, billed for the estimated input priced when the hold was taken.
ALTER TABLE holds ADD COLUMN request_id TEXT NOT NULL DEFAULT '';
ALTER TABLE holds ADD COLUMN model TEXT NOT NULL DEFAULT '';
ALTER TABLE holds ADD COLUMN entry_point TEXT NOT NULL DEFAULT '';
ALTER TABLE holds ADD COLUMN stream INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holds ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holds ADD COLUMN input_cost_micros INTEGER NOT NULL DEFAULT 0;

-- `tollgate requests --id` looks requests up by the id a client saw.
CREATE INDEX ledger_request ON ledger(request_id);
