-- Stored responses linked, not copied: a turn stored from now on keeps in `input_items` only
-- the input items it added, and links to the turn before (`previous_response_id`); a
-- conversation is its chain of turns, read in one recursive query (src/db/stored_responses.ts),
-- so what is stored grows with a chain's length, not with its square. A turn stored before
-- this migration has no link and holds its whole conversation: it reads as a first turn.
-- Storing a turn extends the expiry of the turns before it to its own. A deleted turn that
-- later turns continue stays for them (`deleted` = 1: found no more), until it expires.
ALTER TABLE stored_responses ADD COLUMN previous_response_id TEXT;
ALTER TABLE stored_responses ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
-- Whether a turn is continued (deleting it keeps it then): only linked turns are indexed.
CREATE INDEX stored_responses_previous ON stored_responses (previous_response_id)
  WHERE previous_response_id IS NOT NULL;
