/**
 * Whether OpenTelemetry is on, from the standard variables: `OTEL_DENO=true` turns on the
 * runtime's built-in OTLP exporter (its `OTEL_EXPORTER_OTLP_*` variables say where to), and
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` lets spans carry prompt and
 * answer text (the GenAI semantic conventions' opt-in).
 */

/** What the environment asks of telemetry. */
export interface TelemetryEnv {
  enabled: boolean;
  captureContent: boolean;
}

/** The telemetry settings of this process's environment (off when it cannot be read). */
export function telemetryEnv(): TelemetryEnv {
  const read = (name: string) => {
    try {
      return Deno.env.get(name)?.trim().toLowerCase();
    } catch {
      return undefined;
    }
  };
  const on = (value: string | undefined) => value === "true" || value === "1";
  return {
    enabled: on(read("OTEL_DENO")),
    captureContent: on(read("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")),
  };
}
