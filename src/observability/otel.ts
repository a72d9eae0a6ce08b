/**
 * tollgate's spans and metrics through `@opentelemetry/api`, which the runtime's built-in
 * exporter serves (telemetry.ts loads this only when OTEL_DENO is on). Each is made once the
 * request is over, from its record and its attempts' times: a request span under the
 * runtime's server span, from arrival to last byte, and under it a client span per upstream
 * attempt named and attributed as the GenAI semantic conventions say
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/), and the metrics
 * `gen_ai.client.token.usage` and `gen_ai.client.operation.duration`
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/).
 */
import {
  type Attributes,
  type Context,
  context,
  metrics,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { AttemptRecord } from "../billing/attempt_record.ts";
import { microsToUsd } from "../billing/money.ts";
import { perConfig } from "../config/per_config.ts";
import type { Config } from "../config/schema.ts";
import type { TelemetryEnv } from "../config/telemetry_env.ts";
import { VERSION } from "../version.ts";
import { attemptTimesOf } from "./attempt_times.ts";
import type { RequestRecord } from "./record.ts";
import type { Telemetry } from "./telemetry_hooks.ts";

/** `gen_ai.provider.name` of each channel protocol (the semantic conventions' values). */
const PROVIDERS: Record<string, string> = {
  chat: "openai",
  responses: "openai",
  messages: "anthropic",
  gemini: "gcp.gemini",
  echo: "tollgate",
};

/** The conventions' advised buckets: tokens in powers of 4, seconds in powers of 2. */
const TOKEN_BUCKETS = [
  1,
  4,
  16,
  64,
  256,
  1024,
  4096,
  16384,
  65536,
  262144,
  1048576,
  4194304,
  16777216,
  67108864,
];
const SECOND_BUCKETS = [
  0.01,
  0.02,
  0.04,
  0.08,
  0.16,
  0.32,
  0.64,
  1.28,
  2.56,
  5.12,
  10.24,
  20.48,
  40.96,
  81.92,
];

/** Telemetry over the runtime's tracer and meter providers. */
export function createOtelTelemetry(env: TelemetryEnv): Telemetry {
  const tracer = trace.getTracer("tollgate", VERSION);
  const meter = metrics.getMeter("tollgate", VERSION);
  const tokenUsage = meter.createHistogram("gen_ai.client.token.usage", {
    unit: "{token}",
    description: "Number of input and output tokens used.",
    advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
  });
  const operationDuration = meter.createHistogram("gen_ai.client.operation.duration", {
    unit: "s",
    description: "GenAI operation duration.",
    advice: { explicitBucketBoundaries: SECOND_BUCKETS },
  });
  return {
    started(record) {
      record.trace = context.active();
    },
    finished(record, config) {
      const endedAt = performance.now();
      /** A monotonic time of this request as ms since the epoch. */
      const epoch = (at: number) => record.time + (at - record.startedAt);
      const parent = (record.trace as Context | undefined) ?? context.active();
      const span = tracer.startSpan(
        `tollgate ${record.entry ?? `${record.method} ${record.path}`}`,
        { kind: SpanKind.INTERNAL, startTime: record.time, attributes: requestAttributes(record) },
        parent,
      );
      // Refused, failed, aborted (a stream cut too): an error, with the client's message if any.
      if (record.outcome !== undefined && record.outcome !== "ok") {
        span.setStatus({ code: SpanStatusCode.ERROR, message: record.refusal?.reason });
      }
      const inside = trace.setSpan(parent, span);
      for (const attempt of record.attemptRecords ?? []) {
        const times = attemptTimesOf(attempt);
        const sentAt = times?.sentAt ?? record.startedAt;
        const attemptEnd = times?.endedAt ?? endedAt;
        const sets = attributeSets(attempt, config);
        const attributes: Attributes = { ...sets.common, ...attemptAttributes(attempt) };
        if (env.captureContent) {
          if (record.input !== undefined) attributes["gen_ai.input.messages"] = record.input;
          if (times?.output !== undefined) attributes["gen_ai.output.messages"] = times.output;
        }
        const child = tracer.startSpan(
          `chat ${attempt.upstreamModel}`,
          { kind: SpanKind.CLIENT, startTime: epoch(sentAt), attributes },
          inside,
        );
        if (attempt.outcome !== "ok") {
          child.setStatus({ code: SpanStatusCode.ERROR, message: attempt.reason });
        }
        child.end(epoch(attemptEnd));
        operationDuration.record(Math.max(0, attemptEnd - sentAt) / 1000, sets.measured);
        if (attempt.usage) {
          tokenUsage.record(attempt.usage.input_tokens, sets.input);
          tokenUsage.record(attempt.usage.output_tokens, sets.output);
        }
      }
      // Now, by the same clock as the runtime's server span: after it, for a stream.
      span.end();
    },
  };
}

/** The attribute sets of an attempt's span and metrics, alike for many attempts. */
interface AttributeSets {
  /** The span's and the metrics' shared attributes. */
  common: Attributes;
  /** The duration's: with the response model, or the error's type. */
  measured: Attributes;
  /** The token usage's, input and output. */
  input: Attributes;
  output: Attributes;
}

/** Attribute sets kept per config, at most this many (channels x models x error types). */
const MAX_SETS = 1_000;
const setsOf = perConfig((_config: Config) => new Map<string, AttributeSets>());

/**
 * The attribute sets of `attempt`, made once per channel, model and error type (a metric
 * recorded with an object it has seen before costs a third of one with a new object).
 */
function attributeSets(attempt: AttemptRecord, config: Config): AttributeSets {
  const error = attempt.outcome === "ok" ? undefined : errorType(attempt);
  const key = `${attempt.channel}\n${attempt.upstreamModel}\n${error ?? ""}`;
  const cache = setsOf(config);
  let sets = cache.get(key);
  if (!sets) {
    if (cache.size >= MAX_SETS) cache.clear();
    const common = commonAttributes(attempt, config);
    const measured: Attributes = error === undefined
      ? { ...common, "gen_ai.response.model": attempt.upstreamModel }
      : { ...common, "error.type": error };
    sets = {
      common,
      measured,
      input: { ...measured, "gen_ai.token.type": "input" },
      output: { ...measured, "gen_ai.token.type": "output" },
    };
    cache.set(key, sets);
  }
  return sets;
}

/** What a request's span says of it. */
function requestAttributes(record: RequestRecord): Attributes {
  const attributes: Attributes = {
    "tollgate.request_id": record.requestId,
    "http.request.method": record.method,
    "http.response.status_code": record.status,
    "tollgate.outcome": record.outcome ?? "ok",
    "tollgate.attempts": record.attempts,
  };
  if (record.entry) {
    attributes["tollgate.entry_point"] = record.entry;
    attributes["gen_ai.operation.name"] = "chat";
  }
  if (record.model !== undefined) attributes["gen_ai.request.model"] = record.model;
  if (record.keyId !== undefined) attributes["tollgate.key_id"] = record.keyId;
  if (record.account !== undefined) attributes["tollgate.account"] = record.account;
  if (record.channel !== undefined) attributes["tollgate.channel"] = record.channel;
  const usage = record.usage;
  if (usage) {
    attributes["gen_ai.usage.input_tokens"] = usage.input_tokens;
    attributes["gen_ai.usage.output_tokens"] = usage.output_tokens;
    attributes["gen_ai.usage.cache_read.input_tokens"] = usage.cached_tokens;
    attributes["gen_ai.usage.cache_creation.input_tokens"] = usage.cache_write_tokens;
  }
  if (record.costMicros !== undefined) {
    attributes["tollgate.cost_usd"] = microsToUsd(record.costMicros);
  }
  if (record.refusal) attributes["error.type"] = record.refusal.code;
  else if (record.outcome && record.outcome !== "ok") attributes["error.type"] = record.outcome;
  return attributes;
}

/** What an attempt's span and its metrics share: the operation, provider, model, server. */
function commonAttributes(attempt: AttemptRecord, config: Config): Attributes {
  const channel = config.channels.find((item) => item.name === attempt.channel);
  const attributes: Attributes = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": PROVIDERS[channel?.protocol ?? ""] ?? channel?.protocol ?? "unknown",
    "gen_ai.request.model": attempt.upstreamModel,
  };
  if (channel?.base_url) {
    try {
      const url = new URL(channel.base_url);
      attributes["server.address"] = url.hostname;
      attributes["server.port"] = Number(url.port) ||
        (url.protocol === "https:" ? 443 : 80);
    } catch {
      // A base_url the config accepted always parses; nothing to add otherwise.
    }
  }
  return attributes;
}

/** An attempt's own span attributes: its channel, outcome, status, usage, error. */
function attemptAttributes(attempt: AttemptRecord): Attributes {
  const attributes: Attributes = {
    "tollgate.channel": attempt.channel,
    "tollgate.model": attempt.model,
    "tollgate.attempt.outcome": attempt.outcome,
  };
  if (attempt.status !== undefined) attributes["http.response.status_code"] = attempt.status;
  if (attempt.outcome === "ok" || attempt.outcome === "cut") {
    attributes["gen_ai.response.model"] = attempt.upstreamModel;
  }
  if (attempt.usage) {
    attributes["gen_ai.usage.input_tokens"] = attempt.usage.input_tokens;
    attributes["gen_ai.usage.output_tokens"] = attempt.usage.output_tokens;
    attributes["gen_ai.usage.cache_read.input_tokens"] = attempt.usage.cached_tokens;
    attributes["gen_ai.usage.cache_creation.input_tokens"] = attempt.usage.cache_write_tokens;
  }
  if (attempt.outcome !== "ok") attributes["error.type"] = errorType(attempt);
  if (attempt.reason) attributes["tollgate.reason"] = attempt.reason;
  return attributes;
}

/** `error.type` of a failed attempt: its HTTP status, else how it failed. */
function errorType(attempt: AttemptRecord): string {
  if (attempt.status !== undefined) return String(attempt.status);
  return attempt.kind ?? attempt.outcome;
}
