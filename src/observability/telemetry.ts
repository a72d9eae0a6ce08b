/**
 * OpenTelemetry (design.md "OpenTelemetry"): with `OTEL_DENO=true` the runtime exports
 * traces and metrics over OTLP itself (`OTEL_EXPORTER_OTLP_*`), and its server span wraps
 * each request up to its response head. tollgate adds a span of its own per request, to the
 * answer's last byte, with a GenAI client span per upstream attempt, and the GenAI client
 * metrics. Off (the default), nothing of it loads and a request pays one test of `undefined`.
 */
import type { Config } from "../config/schema.ts";
import { type TelemetryEnv, telemetryEnv } from "../config/telemetry_env.ts";
import { keepAttemptTimes } from "./attempt_times.ts";
import type { RequestRecord } from "./record.ts";

/** What telemetry hears of each request. */
export interface Telemetry {
  /** A request arrived: its parent (the runtime's server span) is noted on its record. */
  started(record: RequestRecord): void;
  /** A request is over, its last byte sent: its spans and metrics, from its record. */
  finished(record: RequestRecord, config: Config): void;
}

/** The telemetry of this process's environment; undefined when OTEL_DENO is off. */
export async function loadTelemetry(
  env: TelemetryEnv = telemetryEnv(),
): Promise<Telemetry | undefined> {
  if (!env.enabled) return undefined;
  keepAttemptTimes(env.captureContent);
  const { createOtelTelemetry } = await import("./otel.ts");
  return createOtelTelemetry(env);
}
