/** What telemetry (telemetry.ts, otel.ts) hears of each request. */
import type { Config } from "../config/schema.ts";
import type { RequestRecord } from "./record.ts";

/** What telemetry hears of each request. */
export interface Telemetry {
  /** A request arrived: its parent (the runtime's server span) is noted on its record. */
  started(record: RequestRecord): void;
  /** A request is over, its last byte sent: its spans and metrics, from its record. */
  finished(record: RequestRecord, config: Config): void;
}
