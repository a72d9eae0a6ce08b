-- Holds live only while their request runs, so the table stays as small as the requests
-- in flight: the recovery sweep scans it whole for less than two indexes cost, and every
-- hold is inserted and deleted once (each index doubled the pages a request writes).
DROP INDEX holds_instance;
DROP INDEX holds_expires;
