/** Where a finished request is reported: the request log and the metrics, as the config says. */
import type { Config } from "../config/schema.ts";
import { IsoTime } from "./iso_time.ts";
import { createLineWriter, type LineWriter } from "./line_writer.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import { elapsedMs, type RequestRecord } from "./record.ts";
import type { RefusalLog } from "./refusal_log.ts";
import { logRequest } from "./request_log.ts";

/** Reports requests; one per gateway. */
export interface Observer {
  readonly metrics: Metrics;
  /** The records of refused requests; none kept when absent. */
  readonly refusals?: RefusalLog;
  /** A request is over: one log line and its metrics, if the request's config wants them. */
  finished(record: RequestRecord, server: Config["server"]): void;
  /** Resolves once the log lines (and refusal records) queued so far are written. */
  flush(): Promise<void>;
}

/** An observer over a metrics registry and a line writer (stdout by default). */
export function createObserver(
  options: { metrics?: Metrics; writer?: LineWriter; refusals?: RefusalLog } = {},
): Observer {
  const metrics = options.metrics ?? createMetrics();
  const writer = options.writer ?? createLineWriter();
  const time = new IsoTime();
  const refusals = options.refusals;
  return {
    metrics,
    refusals,
    finished(record, server) {
      const totalMs = elapsedMs(record);
      if (record.outcome === "refused") refusals?.refused(record, totalMs);
      // The admin API's channel health counts whether or not Prometheus is exposed.
      metrics.channels.requestFinished(record, totalMs);
      if (server.metrics) metrics.requestFinished(record, totalMs);
      if (server.request_log) logRequest(writer, server.log_format, record, totalMs, time);
    },
    flush: async () => {
      await refusals?.flush();
      await writer.flush();
    },
  };
}
