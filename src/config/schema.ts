/**
 * The config file's schema (zod): what `config.toml` may say, with its defaults, the
 * checks across fields, and its JSON Schema for editors.
 */
import * as z from "zod/mini";
import {
  corsOrigin,
  described,
  flag,
  httpUrl,
  integer,
  list,
  listenAddress,
  matching,
  nonEmptyText,
  nonNegativeInteger,
  nonNegativeNumber,
  oneOf,
  optional,
  orDefaults,
  positiveInteger,
  table,
  tableOf,
  text,
  withDefault,
} from "./fields.ts";
import { formatPath, type Problem, problemsOf } from "./problems.ts";
import { AlertsSchema, BudgetSchema, BudgetsSchema, checkAlerts } from "./budgets_schema.ts";

export type { Problem } from "./problems.ts";

/** The wire protocols tollgate serves as entry points. */
export const ENTRY_PROTOCOLS = ["chat", "responses", "messages", "gemini"] as const;
/** An entry-point protocol: chat completions, responses, messages or Gemini's generateContent. */
export type EntryProtocol = typeof ENTRY_PROTOCOLS[number];
/** What a channel's upstream speaks: an entry protocol or the built-in echo. */
export type ChannelProtocol = EntryProtocol | "echo";

/** `[timeouts] first_content` when the config sets none, for a model not marked `reasoning`. */
export const DEFAULT_FIRST_CONTENT_MS = 120_000;

/** `[timeouts]`: the timeouts of a request, in milliseconds. */
export const TimeoutsSchema = table({
  body: withDefault(
    positiveInteger(),
    60_000,
    "A client's whole request body must arrive within this, in ms; else 408.",
  ),
  connect: withDefault(positiveInteger(), 10_000, "Connecting to an upstream, in ms."),
  first_byte: withDefault(
    positiveInteger(),
    120_000,
    "An upstream's headers (and, streaming, its first event) must come within this, in ms.",
  ),
  first_content: optional(
    positiveInteger(),
    "Streaming: the first text, reasoning or tool-call delta must come within this, in ms " +
      `(default ${DEFAULT_FIRST_CONTENT_MS}; for models marked \`reasoning\`, \`total\`: they ` +
      "may think in silence).",
  ),
  idle: withDefault(
    positiveInteger(),
    120_000,
    "Streaming: silence longer than this ends (or rescues) the stream, in ms.",
  ),
  total: withDefault(positiveInteger(), 900_000, "The hard cap on one request, in ms."),
});
/** `[timeouts]`: a client's request body and the upstream calls, in milliseconds. */
export type TimeoutsConfig = z.infer<typeof TimeoutsSchema>;
/** The resolved timeouts of a call to an upstream (a channel may override each), in ms. */
export type Timeouts = Omit<TimeoutsConfig, "body">;

/** `[failover]`: what is tried again, and elsewhere, when an upstream fails. */
export const FailoverSchema = table({
  retries: withDefault(
    nonNegativeInteger(),
    1,
    "Per channel: tries more after a 5xx, a reset or a timeout before the answer started, " +
      "each after a jittered 250-1000 ms.",
  ),
  retry_after_max_ms: withDefault(
    nonNegativeInteger(),
    5_000,
    "A 429/503 whose Retry-After is at most this is waited out once on the same channel key " +
      "(within `total`); a longer one fails over at once.",
  ),
  cooldown_ms: withDefault(
    positiveInteger(),
    30_000,
    "A channel that failed 3 times in a row rests this long; then one probe request decides " +
      "whether it takes traffic again.",
  ),
  max_attempts: withDefault(
    positiveInteger(),
    6,
    "Upstream calls for one client request: retries, channels, fallback models and rescues.",
  ),
  rescue_streams: withDefault(
    flag(),
    true,
    "Continue a stream cut or stalled mid-text on a channel that accepts a prefill.",
  ),
});
/** `[failover]`: retries, cool-down and rescues. */
export type FailoverConfig = z.infer<typeof FailoverSchema>;

/** `[server]`: the listener, its entry points and what it logs. */
export const ServerSchema = table({
  listen: withDefault(listenAddress(), "127.0.0.1:8080", 'The address to listen on, "host:port".'),
  entry_points: withDefault(
    list(oneOf(ENTRY_PROTOCOLS)),
    () => [...ENTRY_PROTOCOLS],
    "The POST endpoints exposed; the others answer 404.",
  ),
  max_body_bytes: withDefault(
    positiveInteger(),
    8_388_608,
    "A larger request body is refused with 413.",
  ),
  max_answer_bytes: withDefault(
    positiveInteger(),
    67_108_864,
    "An upstream's whole answer larger than this: 502.",
  ),
  max_header_bytes: withDefault(
    positiveInteger(),
    65_536,
    "The most a client's request head may take; larger: 431.",
  ),
  max_headers: withDefault(
    positiveInteger(),
    100,
    "The most header fields a client's request may have; more: 431.",
  ),
  max_answer_head_bytes: withDefault(
    positiveInteger(),
    65_536,
    "The most an upstream's response head may take.",
  ),
  max_chunk_extension_bytes: withDefault(
    nonNegativeInteger(),
    1_024,
    "The most chunk extensions an upstream's chunked answer may carry; 0: none.",
  ),
  max_trailer_bytes: withDefault(
    nonNegativeInteger(),
    16_384,
    "The most trailer fields an upstream's chunked answer may carry; 0: none.",
  ),
  trusted_proxies: withDefault(list(text()), () => [], "CIDRs whose X-Forwarded-For is believed."),
  shutdown_grace_ms: withDefault(
    nonNegativeInteger(),
    30_000,
    "SIGTERM/SIGINT: how long requests in flight get to finish before they are ended.",
  ),
  keepalive_ms: withDefault(
    nonNegativeInteger(),
    15_000,
    "A keep-alive (SSE comment, or messages `ping`) during upstream silence this long; 0: off.",
  ),
  request_log: withDefault(flag(), true, "One line per request on stdout."),
  log_format: withDefault(
    oneOf(["text", "json"]),
    "text",
    "The request log's format: text for a terminal, JSON for a log shipper.",
  ),
  metrics: withDefault(flag(), true, "GET /metrics in the Prometheus text format."),
  metrics_token: withDefault(
    text(),
    "",
    "When set, GET /metrics needs `Authorization: Bearer <metrics_token>`.",
  ),
  cors_origins: withDefault(
    list(corsOrigin()),
    () => [],
    'Browser origins allowed to call the API ("*" for any); none by default.',
  ),
  dashboard: withDefault(flag(), true, "The web dashboard at /admin and its API at /admin/api."),
  tls_cert: withDefault(
    text(),
    "",
    "A PEM certificate file to serve HTTPS with, beside tls_key; a relative path is taken " +
      "from the config file's folder.",
  ),
  tls_key: withDefault(text(), "", "The PEM private key file of tls_cert."),
});
/** `[server]`: the listener, its entry points and what it logs. */
export type ServerConfig = z.infer<typeof ServerSchema>;

/** `[database]`: where the ledger lives. */
export const DatabaseSchema = table({
  url: withDefault(
    text(),
    "file:tollgate.db",
    "file: (SQLite; a relative path is taken from the config file's folder), libsql:// or " +
      "postgres://; $TOLLGATE_DATABASE_URL overrides.",
  ),
});
/** `[database]`: where the ledger lives. */
export type DatabaseConfig = z.infer<typeof DatabaseSchema>;

/** `[routing]`: how requests are spread over channels. */
export const RoutingSchema = table({
  cache_affinity: withDefault(
    flag(),
    true,
    "A conversation sticks to the channel and key that served it, so the upstream's prompt " +
      "cache hits.",
  ),
  affinity_ttl_s: withDefault(
    positiveInteger(),
    3_600,
    "How long an idle conversation stays bound, in seconds.",
  ),
});
/** `[routing]`: how requests are spread over channels. */
export type RoutingConfig = z.infer<typeof RoutingSchema>;

/** `[responses]`: stored responses of the responses API. */
export const ResponsesSchema = table({
  store: withDefault(
    flag(),
    true,
    "Keep /v1/responses answers with `store` (the API's default) for previous_response_id, " +
      "item_reference and GET/DELETE by id.",
  ),
  retention_days: withDefault(positiveInteger(), 30, "How long a stored response is kept."),
});
/** `[responses]`: stored responses of the responses API. */
export type ResponsesConfig = z.infer<typeof ResponsesSchema>;

/** `[observability]`: what is kept of requests. */
export const ObservabilitySchema = table({
  request_log_days: withDefault(
    positiveInteger(),
    30,
    "How long the records of refused requests (the request log's refusals) are kept.",
  ),
});
/** `[observability]`: what is kept of requests. */
export type ObservabilityConfig = z.infer<typeof ObservabilitySchema>;

/** `[models."id"]`: metadata of one model that the upstream model list does not carry. */
export const ModelSchema = table({
  context_window: optional(
    positiveInteger(),
    "Input plus requested output above this: 400 context_length_exceeded.",
  ),
  reasoning: optional(
    flag(),
    "The model reasons (takes a reasoning effort or thinking budget): only then does a " +
      "translated request carry the client's reasoning settings, which other models reject.",
  ),
  max_output_tokens: optional(
    positiveInteger(),
    "Also the default max output when translating to messages.",
  ),
  rpm: optional(positiveInteger(), "Requests per minute to this model, across all keys."),
  tpm: optional(
    positiveInteger(),
    "Tokens (input plus output) per minute of this model, across all keys.",
  ),
  input_price: optional(nonNegativeNumber(), "USD per 1M input tokens."),
  output_price: optional(nonNegativeNumber(), "USD per 1M output tokens."),
  cached_input_price: optional(
    nonNegativeNumber(),
    "USD per 1M cache-read tokens; input_price by default.",
  ),
  cache_write_price: optional(
    nonNegativeNumber(),
    "USD per 1M cache-write tokens; input_price by default.",
  ),
  owned_by: optional(text(), "`owned_by` in the model list."),
  display_name: optional(text(), "`display_name` in the model list."),
  fallbacks: optional(
    list(nonEmptyText()),
    "Models tried in order when no channel of this one answered before the answer was " +
      "committed, or when the request is over its context window. A model no channel serves " +
      "is an alias: its fallbacks are its chain.",
  ),
  prefill: optional(
    flag(),
    "The model continues an answer given as a trailing assistant turn (what a stream " +
      "rescue needs); default false.",
  ),
});
/** Metadata of one model that the upstream model list does not carry. */
export type ModelConfig = z.infer<typeof ModelSchema>;

/** `[groups.NAME]`: which models its keys may use, at what price and rate. */
export const GroupSchema = table({
  models: withDefault(list(text()), () => ["*"], '["*"] or an explicit list.'),
  price_multiplier: withDefault(nonNegativeNumber(), 1),
  rpm: optional(positiveInteger(), "Per key: requests per minute."),
  tpm: optional(positiveInteger(), "Per key: tokens (input plus output) per minute."),
  concurrency: optional(positiveInteger(), "Per key: requests at once."),
  account_rpm: optional(positiveInteger(), "Per account, across its keys: rpm."),
  account_tpm: optional(positiveInteger(), "Per account, across its keys: tpm."),
  account_concurrency: optional(
    positiveInteger(),
    "Per account, across its keys: requests at once.",
  ),
  key_budget: optional(BudgetSchema, "The default budget of each key of the group (USD a period)."),
});
/** A group: which models its keys may use, at what price and rate. */
export type GroupConfig = z.infer<typeof GroupSchema>;

/** An HTTP header name (a token, RFC 9110): what fetch accepts. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value: no line breaks or NUL, which would end or corrupt the header. */
const HEADER_VALUE = /^[^\r\n\0]*$/;

/** `[[channels]]`: one upstream, where requests for its models may be sent. */
export const ChannelSchema = table({
  name: nonEmptyText(),
  protocol: described(
    oneOf([...ENTRY_PROTOCOLS, "echo"]),
    "What the upstream speaks; echo is built in and needs no upstream.",
  ),
  base_url: optional(
    httpUrl(),
    "With /v1 (Gemini's: with /v1beta); tollgate appends /chat/completions, /responses, " +
      "/messages or /models/{model}:generateContent.",
  ),
  keys: withDefault(
    list(text()),
    () => [],
    'Upstream keys, rotated; "${VAR}" reads the environment.',
  ),
  models: list(nonEmptyText(), "must list at least one model"),
  groups: withDefault(list(text()), () => ["default"]),
  priority: withDefault(integer(), 0, "Higher first; equal priority shares by weight."),
  weight: withDefault(positiveInteger(), 1),
  model_map: withDefault(tableOf(text()), () => ({}), "Client model id -> upstream model id."),
  headers: withDefault(
    tableOf(matching(HEADER_VALUE, "must be a header value on one line"), {
      pattern: HEADER_NAME,
      message: "must be a header name: letters, digits and !#$%&'*+-.^_`|~",
    }),
    () => ({}),
    "Extra headers sent upstream.",
  ),
  // No defaults here: a channel overrides only the timeouts it names.
  timeouts: orDefaults(
    table({
      connect: optional(positiveInteger()),
      first_byte: optional(positiveInteger()),
      first_content: optional(positiveInteger()),
      idle: optional(positiveInteger()),
      total: optional(positiveInteger()),
    }),
    "Overrides of [timeouts] for this channel.",
  ),
  prefill: optional(
    flag(),
    "Whether this channel's upstream continues a trailing assistant turn; its model's " +
      "`prefill` when absent. Never for a responses channel.",
  ),
});
/** One upstream channel: where requests for its models may be sent. */
export type ChannelConfig = z.infer<typeof ChannelSchema>;

/** The whole config file. */
export const ConfigSchema = table({
  server: orDefaults(ServerSchema),
  database: orDefaults(DatabaseSchema),
  timeouts: orDefaults(TimeoutsSchema),
  routing: orDefaults(RoutingSchema),
  failover: orDefaults(FailoverSchema),
  responses: orDefaults(ResponsesSchema),
  observability: orDefaults(ObservabilitySchema),
  models: withDefault(tableOf(ModelSchema), () => ({})),
  groups: withDefault(tableOf(GroupSchema), () => ({})),
  channels: withDefault(list(ChannelSchema), () => []),
  budgets: orDefaults(BudgetsSchema),
  alerts: orDefaults(AlertsSchema),
}).check(z.superRefine(checkAcrossFields, {
  // The checks across fields need every field well-formed; unknown keys alone leave it so,
  // and a misspelt `base_ur` is then reported alongside the base_url it leaves missing.
  when: (payload) => payload.issues.every((issue) => issue.code === "unrecognized_keys"),
}));
/** The whole validated config. */
export type Config = z.infer<typeof ConfigSchema>;

/** Checks a parsed config file: the config with every default filled in, or every problem. */
export function validateConfig(value: unknown): { config: Config } | { problems: Problem[] } {
  const result = ConfigSchema.safeParse(value);
  return result.success ? { config: result.data } : { problems: problemsOf(result.error.issues) };
}

/** `validateConfig` for tests and literals: the config, or an Error listing every problem. */
export function parseConfig(value: unknown): Config {
  const result = validateConfig(value);
  if ("config" in result) return result.config;
  const lines = result.problems.map(({ path, message }) => `  ${formatPath(path)}: ${message}`);
  throw new Error(`Validating config failed:\n${lines.join("\n")}`);
}

/** The JSON Schema of the config file as written (defaults make keys optional), for editors. */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ConfigSchema, { io: "input", unrepresentable: "any" });
}

/**
 * What one field cannot say alone: a TLS certificate with its key, unique channel names, a
 * base_url, groups that exist, fallbacks that name models and never lead back.
 */
function checkAcrossFields(config: Config, ctx: z.core.$RefinementCtx<Config>): void {
  const { tls_cert, tls_key } = config.server;
  if ((tls_cert === "") !== (tls_key === "")) {
    ctx.addIssue({
      code: "custom",
      path: ["server", tls_cert === "" ? "tls_cert" : "tls_key"],
      message: "tls_cert and tls_key are set together (HTTPS) or not at all",
    });
  }
  const names = new Set<string>();
  config.channels.forEach((channel, index) => {
    const path = ["channels", index];
    if (names.has(channel.name)) {
      ctx.addIssue({
        code: "custom",
        path: [...path, "name"],
        message: `channel name "${channel.name}" is used twice`,
      });
    }
    names.add(channel.name);
    if (channel.protocol !== "echo" && !channel.base_url) {
      ctx.addIssue({
        code: "custom",
        path: [...path, "base_url"],
        message: `channel "${channel.name}" needs a base_url`,
      });
    }
    for (const group of channel.groups) {
      // Own keys only: `in` would take a group named "constructor" from Object.prototype.
      if (!Object.hasOwn(config.groups, group)) {
        ctx.addIssue({
          code: "custom",
          path: [...path, "groups"],
          message:
            `channel "${channel.name}" names group "${group}", which is not defined under [groups]`,
        });
      }
    }
    if (channel.protocol === "responses" && channel.prefill === true) {
      ctx.addIssue({
        code: "custom",
        path: [...path, "prefill"],
        message: `channel "${channel.name}" speaks responses, which cannot continue a prefill`,
      });
    }
  });
  checkFallbacks(config, ctx);
  checkAlerts(config.alerts, (path, message) => ctx.addIssue({ code: "custom", path, message }));
}

/** Fallbacks name models a channel serves or aliases, and no chain leads back to itself. */
function checkFallbacks(config: Config, ctx: z.core.$RefinementCtx<Config>): void {
  const served = new Set(config.channels.flatMap((channel) => channel.models));
  const known = (name: string) =>
    served.has(name) || (config.models[name]?.fallbacks?.length ?? 0) > 0;
  for (const [name, model] of Object.entries(config.models)) {
    model.fallbacks?.forEach((fallback, index) => {
      if (!known(fallback)) {
        ctx.addIssue({
          code: "custom",
          path: ["models", name, "fallbacks", index],
          message: `fallback "${fallback}" of model "${name}" is served by no channel and ` +
            "is no alias",
        });
      }
    });
    const cycle = cycleFrom(name, config);
    if (cycle) {
      ctx.addIssue({
        code: "custom",
        path: ["models", name, "fallbacks"],
        message: `fallbacks lead back to model "${name}": ${cycle.join(" -> ")}`,
      });
    }
  }
}

/** The path by which `start`'s fallbacks reach `start` again, if they do. */
function cycleFrom(start: string, config: Config): string[] | undefined {
  const seen = new Set<string>();
  const walk = (name: string, path: string[]): string[] | undefined => {
    for (const next of config.models[name]?.fallbacks ?? []) {
      if (next === start) return [...path, next];
      if (seen.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [start]);
}
