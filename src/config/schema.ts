/**
 * The config file's schema (zod): what `config.toml` may say, with its defaults, the
 * checks across fields, and its JSON Schema for editors.
 */
import { z } from "zod";
import {
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
  positiveInteger,
  table,
  tableOf,
  text,
} from "./fields.ts";
import { formatPath, type Problem, problemsOf } from "./problems.ts";

export type { Problem } from "./problems.ts";

/** The three wire protocols tollgate serves as entry points. */
export const ENTRY_PROTOCOLS = ["chat", "responses", "messages"] as const;
/** An entry-point protocol: chat completions, responses or messages. */
export type EntryProtocol = typeof ENTRY_PROTOCOLS[number];
/** What a channel's upstream speaks: an entry protocol or the built-in echo. */
export type ChannelProtocol = EntryProtocol | "echo";

/** `[timeouts]`: the timeouts of a request, in milliseconds. */
export const TimeoutsSchema = table({
  connect: positiveInteger().default(10_000).describe("Connecting to an upstream, in ms."),
  first_byte: positiveInteger().default(120_000).describe(
    "An upstream's headers (and, streaming, its first event) must come within this, in ms.",
  ),
  idle: positiveInteger().default(120_000).describe(
    "Streaming: silence longer than this ends the stream, in ms.",
  ),
  total: positiveInteger().default(900_000).describe("The hard cap on one request, in ms."),
});
/** The resolved timeouts of a request, in milliseconds. */
export type Timeouts = z.infer<typeof TimeoutsSchema>;

/** `[server]`: the listener, its entry points and what it logs. */
export const ServerSchema = table({
  listen: listenAddress().default("127.0.0.1:8080").describe(
    'The address to listen on, "host:port".',
  ),
  entry_points: list(oneOf(ENTRY_PROTOCOLS)).default(() => [...ENTRY_PROTOCOLS]).describe(
    "The POST endpoints exposed; the others answer 404.",
  ),
  max_body_bytes: positiveInteger().default(8_388_608).describe(
    "A larger request body is refused with 413.",
  ),
  trusted_proxies: list(text()).default(() => []).describe(
    "CIDRs whose X-Forwarded-For is believed.",
  ),
  shutdown_grace_ms: nonNegativeInteger().default(30_000).describe(
    "SIGTERM/SIGINT: how long requests in flight get to finish before they are ended.",
  ),
  keepalive_ms: nonNegativeInteger().default(15_000).describe(
    "A keep-alive (SSE comment, or messages `ping`) during upstream silence this long; 0: off.",
  ),
  request_log: flag().default(true).describe("One line per request on stdout."),
  log_format: oneOf(["text", "json"]).default("text").describe(
    "The request log's format: text for a terminal, JSON for a log shipper.",
  ),
  metrics: flag().default(true).describe("GET /metrics in the Prometheus text format."),
  metrics_token: text().default("").describe(
    "When set, GET /metrics needs `Authorization: Bearer <metrics_token>`.",
  ),
});
/** `[server]`: the listener, its entry points and what it logs. */
export type ServerConfig = z.infer<typeof ServerSchema>;

/** `[database]`: where the ledger lives. */
export const DatabaseSchema = table({
  url: text().default("file:tollgate.db").describe(
    "file: (SQLite; a relative path is taken from the config file's folder), libsql:// or " +
      "postgres://; $TOLLGATE_DATABASE_URL overrides.",
  ),
});
/** `[database]`: where the ledger lives. */
export type DatabaseConfig = z.infer<typeof DatabaseSchema>;

/** `[models."id"]`: metadata of one model that the upstream model list does not carry. */
export const ModelSchema = table({
  context_window: positiveInteger().optional().describe(
    "Input plus requested output above this: 400 context_length_exceeded.",
  ),
  reasoning: flag().optional().describe(
    "The model reasons (takes a reasoning effort or thinking budget): only then does a " +
      "translated request carry the client's reasoning settings, which other models reject.",
  ),
  max_output_tokens: positiveInteger().optional().describe(
    "Also the default max output when translating to messages.",
  ),
  rpm: positiveInteger().optional().describe("Requests per minute to this model, across all keys."),
  tpm: positiveInteger().optional().describe(
    "Tokens (input plus output) per minute of this model, across all keys.",
  ),
  input_price: nonNegativeNumber().optional().describe("USD per 1M input tokens."),
  output_price: nonNegativeNumber().optional().describe("USD per 1M output tokens."),
  cached_input_price: nonNegativeNumber().optional().describe(
    "USD per 1M cache-read tokens; input_price by default.",
  ),
  cache_write_price: nonNegativeNumber().optional().describe(
    "USD per 1M cache-write tokens; input_price by default.",
  ),
  owned_by: text().optional().describe("`owned_by` in the model list."),
  display_name: text().optional().describe("`display_name` in the model list."),
});
/** Metadata of one model that the upstream model list does not carry. */
export type ModelConfig = z.infer<typeof ModelSchema>;

/** `[groups.NAME]`: which models its keys may use, at what price and rate. */
export const GroupSchema = table({
  models: list(text()).default(() => ["*"]).describe('["*"] or an explicit list.'),
  price_multiplier: nonNegativeNumber().default(1),
  rpm: positiveInteger().optional().describe("Per key: requests per minute."),
  tpm: positiveInteger().optional().describe("Per key: tokens (input plus output) per minute."),
  concurrency: positiveInteger().optional().describe("Per key: requests at once."),
  account_rpm: positiveInteger().optional().describe("Per account, across its keys: rpm."),
  account_tpm: positiveInteger().optional().describe("Per account, across its keys: tpm."),
  account_concurrency: positiveInteger().optional().describe(
    "Per account, across its keys: requests at once.",
  ),
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
  protocol: oneOf(["chat", "responses", "messages", "echo"]).describe(
    "What the upstream speaks; echo is built in and needs no upstream.",
  ),
  base_url: httpUrl().optional().describe(
    "With /v1; tollgate appends /chat/completions, /responses or /messages.",
  ),
  keys: list(text()).default(() => []).describe(
    'Upstream keys, rotated; "${VAR}" reads the environment.',
  ),
  models: list(nonEmptyText(), "must list at least one model"),
  groups: list(text()).default(() => ["default"]),
  priority: integer().default(0).describe("Higher first; equal priority shares by weight."),
  weight: positiveInteger().default(1),
  model_map: tableOf(text()).default(() => ({})).describe(
    "Client model id -> upstream model id.",
  ),
  headers: tableOf(matching(HEADER_VALUE, "must be a header value on one line"), {
    pattern: HEADER_NAME,
    message: "must be a header name: letters, digits and !#$%&'*+-.^_`|~",
  }).default(() => ({})).describe("Extra headers sent upstream."),
  // No defaults here: a channel overrides only the timeouts it names.
  timeouts: table({
    connect: positiveInteger().optional(),
    first_byte: positiveInteger().optional(),
    idle: positiveInteger().optional(),
    total: positiveInteger().optional(),
  }).prefault({}).describe("Overrides of [timeouts] for this channel."),
});
/** One upstream channel: where requests for its models may be sent. */
export type ChannelConfig = z.infer<typeof ChannelSchema>;

/** The whole config file. */
export const ConfigSchema = table({
  server: ServerSchema.prefault({}),
  database: DatabaseSchema.prefault({}),
  timeouts: TimeoutsSchema.prefault({}),
  models: tableOf(ModelSchema).default(() => ({})),
  groups: tableOf(GroupSchema).default(() => ({})),
  channels: list(ChannelSchema).default(() => []),
}).check(z.superRefine(checkChannels, {
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

/** What one field cannot say alone: unique channel names, a base_url, groups that exist. */
function checkChannels(config: Config, ctx: z.RefinementCtx): void {
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
  });
}
