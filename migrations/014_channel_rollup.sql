-- Channel health over time (issue 44): the upstream attempts of the ledger rows, rolled up by
-- minute (its first millisecond, UTC) and channel, in the batch that writes the rows
-- (src/db/channel_rollup_rows.ts), so that the dashboard's channels page shows the last
-- hour and day alike on every node. An attempt counts in the minute of its row's
-- `created_at`. `errors` counts the attempts that failed by the channel's fault (not the
-- client's 400, 404, 413 or 422, not a client gone or a shutdown); `ok` those that served;
-- the time to first byte of the attempts that had one is summed in `ttfb_ms` and counted
-- in ten buckets, `ttfb_0` below 100 ms, then below 250, 500, 1000, 2000, 4000, 8000, 16000
-- and 32000 ms, `ttfb_9` from 32000 on. `last_ok_at` and `last_error_at` are the latest
-- such rows' times (0: none), `last_error` and `last_error_status` that error's reason and
-- status. Rows older than two days are removed by the serving processes.
CREATE TABLE channel_rollup (
  minute INTEGER NOT NULL,
  channel TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  ok INTEGER NOT NULL DEFAULT 0,
  errors INTEGER NOT NULL DEFAULT 0,
  ttfb_ms INTEGER NOT NULL DEFAULT 0,
  ttfb_0 INTEGER NOT NULL DEFAULT 0,
  ttfb_1 INTEGER NOT NULL DEFAULT 0,
  ttfb_2 INTEGER NOT NULL DEFAULT 0,
  ttfb_3 INTEGER NOT NULL DEFAULT 0,
  ttfb_4 INTEGER NOT NULL DEFAULT 0,
  ttfb_5 INTEGER NOT NULL DEFAULT 0,
  ttfb_6 INTEGER NOT NULL DEFAULT 0,
  ttfb_7 INTEGER NOT NULL DEFAULT 0,
  ttfb_8 INTEGER NOT NULL DEFAULT 0,
  ttfb_9 INTEGER NOT NULL DEFAULT 0,
  last_ok_at INTEGER NOT NULL DEFAULT 0,
  last_error_at INTEGER NOT NULL DEFAULT 0,
  last_error_status INTEGER,
  last_error TEXT,
  PRIMARY KEY (minute, channel)
) WITHOUT ROWID;
