-- Balances and quotas are kept by the batch that writes holds and ledger rows
-- (src/db/holds.ts): its jobs are decided in order against the totals read once, and
-- each account's and key's new totals are written once per transaction, where these
-- triggers updated both rows for every hold taken, released and charged (six updates a
-- request; bench/README.md). Holds and ledger rows are written by that batch alone.
DROP TRIGGER ledger_charges;
DROP TRIGGER holds_take;
DROP TRIGGER holds_release;
