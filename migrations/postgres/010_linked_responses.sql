-- Stored responses linked, not copied: see migrations/010_linked_responses.sql.
ALTER TABLE stored_responses ADD COLUMN previous_response_id TEXT;
ALTER TABLE stored_responses ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
CREATE INDEX stored_responses_previous ON stored_responses (previous_response_id)
  WHERE previous_response_id IS NOT NULL;
