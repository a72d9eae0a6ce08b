/** The config file's schema: what `config.toml` may say, with its defaults, and its validator. */
import {
  type Field,
  flag,
  formatPath,
  httpUrl,
  integer,
  INVALID,
  list,
  matching,
  nonEmptyText,
  nonNegativeInteger,
  nonNegativeNumber,
  oneOf,
  optional,
  orDefaults,
  positiveInteger,
  type Problem,
  table,
  tableOf,
  text,
  withDefault,
} from "./validate.ts";

export type { Problem } from "./validate.ts";

/** The three wire protocols tollgate serves as entry points. */
export const ENTRY_PROTOCOLS = ["chat", "responses", "messages"] as const;
/** An entry-point protocol: chat completions, responses or messages. */
export type EntryProtocol = typeof ENTRY_PROTOCOLS[number];
/** What a channel's upstream speaks: an entry protocol or the built-in echo. */
export type ChannelProtocol = EntryProtocol | "echo";

/** The resolved timeouts of a request, in milliseconds. */
export interface Timeouts {
  connect: number;
  first_byte: number;
  idle: number;
  total: number;
}

/** `[timeouts]`: the upstream's timeouts, and how long a client's request body may take. */
export interface TimeoutsConfig extends Timeouts {
  /** A client's whole request body must arrive within this. */
  body: number;
}

/** `[server]`: the listener, its entry points and what it logs. */
export interface ServerConfig {
  listen: string;
  entry_points: EntryProtocol[];
  max_body_bytes: number;
  /** A client's request head (its header fields) larger than this: 431. */
  max_header_bytes: number;
  /** More header fields than this in a client's request: 431. */
  max_headers: number;
  trusted_proxies: string[];
  /** SIGTERM/SIGINT: how long requests in flight get to finish before they are ended. */
  shutdown_grace_ms: number;
  /** A keep-alive (SSE comment, or messages `ping`) during upstream silence this long; 0: off. */
  keepalive_ms: number;
  /** One line per request on stdout. */
  request_log: boolean;
  /** The request log's format: text for a terminal, JSON for a log shipper. */
  log_format: "text" | "json";
  /** `GET /metrics` in the Prometheus text format. */
  metrics: boolean;
  /** When set, `GET /metrics` needs `Authorization: Bearer <metrics_token>`. */
  metrics_token: string;
  /** PEM files: with both set, clients are served HTTPS. */
  tls_cert: string;
  tls_key: string;
}

/** `[routing]`: how requests choose among the channels of their model. */
export interface RoutingConfig {
  /** A conversation sticks to the channel and channel key that last served it. */
  cache_affinity: boolean;
  /** Seconds an idle conversation stays bound. */
  affinity_ttl_s: number;
}

/** `[database]`: where the ledger lives. */
export interface DatabaseConfig {
  url: string;
}

/** Metadata of one model that the upstream model list does not carry. */
export interface ModelConfig {
  context_window?: number;
  /**
   * The model reasons (takes a reasoning effort or thinking budget). Only then does a
   * translated request carry the client's reasoning settings: other models reject them.
   */
  reasoning?: boolean;
  max_output_tokens?: number;
  /** Requests per minute to this model, across all keys. */
  rpm?: number;
  /** Tokens (input plus output) per minute of this model, across all keys. */
  tpm?: number;
  input_price?: number;
  output_price?: number;
  cached_input_price?: number;
  cache_write_price?: number;
  owned_by?: string;
  display_name?: string;
}

/** A group: which models its keys may use, at what price and rate. */
export interface GroupConfig {
  models: string[];
  price_multiplier: number;
  /** Per key: requests per minute, tokens (input plus output) per minute, requests at once. */
  rpm?: number;
  tpm?: number;
  concurrency?: number;
  /** Per account, across its keys: the same three limits. */
  account_rpm?: number;
  account_tpm?: number;
  account_concurrency?: number;
}

/** One upstream channel: where requests for its models may be sent. */
export interface ChannelConfig {
  name: string;
  protocol: ChannelProtocol;
  base_url?: string;
  keys: string[];
  models: string[];
  groups: string[];
  priority: number;
  weight: number;
  model_map: Record<string, string>;
  headers: Record<string, string>;
  /** Only the timeouts this channel overrides; the rest come from the top-level `[timeouts]`. */
  timeouts: Partial<Timeouts>;
}

/** The whole validated config. */
export interface Config {
  server: ServerConfig;
  routing: RoutingConfig;
  database: DatabaseConfig;
  timeouts: TimeoutsConfig;
  models: Record<string, ModelConfig>;
  groups: Record<string, GroupConfig>;
  channels: ChannelConfig[];
}

/** Checks a parsed config file: the config with every default filled in, or every problem. */
export function validateConfig(value: unknown): { config: Config } | { problems: Problem[] } {
  const problems: Problem[] = [];
  const config = readConfig(value, [], problems);
  // The checks across fields need every field well-formed; unknown keys alone leave it so.
  if (config === INVALID) return { problems };
  problems.push(...checkChannels(config));
  return problems.length === 0 ? { config } : { problems };
}

/** `validateConfig` for tests and literals: the config, or an Error listing every problem. */
export function parseConfig(value: unknown): Config {
  const result = validateConfig(value);
  if ("config" in result) return result.config;
  const lines = result.problems.map(({ path, message }) => `  ${formatPath(path)}: ${message}`);
  throw new Error(`Validating config failed:\n${lines.join("\n")}`);
}

const readTimeouts: Field<TimeoutsConfig> = table<TimeoutsConfig>({
  body: withDefault(positiveInteger, () => 60_000),
  connect: withDefault(positiveInteger, () => 10_000),
  first_byte: withDefault(positiveInteger, () => 120_000),
  idle: withDefault(positiveInteger, () => 120_000),
  total: withDefault(positiveInteger, () => 900_000),
});

const readServer: Field<ServerConfig> = table<ServerConfig>({
  listen: withDefault(text, () => "127.0.0.1:8080"),
  entry_points: withDefault(list(oneOf(ENTRY_PROTOCOLS)), () => [...ENTRY_PROTOCOLS]),
  max_body_bytes: withDefault(positiveInteger, () => 8_388_608),
  max_header_bytes: withDefault(positiveInteger, () => 65_536),
  max_headers: withDefault(positiveInteger, () => 100),
  trusted_proxies: withDefault(list(text), () => []),
  shutdown_grace_ms: withDefault(nonNegativeInteger, () => 30_000),
  keepalive_ms: withDefault(nonNegativeInteger, () => 15_000),
  request_log: withDefault(flag, () => true),
  log_format: withDefault(oneOf(["text", "json"]), () => "text"),
  metrics: withDefault(flag, () => true),
  metrics_token: withDefault(text, () => ""),
  tls_cert: withDefault(text, () => ""),
  tls_key: withDefault(text, () => ""),
});

const readRouting: Field<RoutingConfig> = table<RoutingConfig>({
  cache_affinity: withDefault(flag, () => true),
  affinity_ttl_s: withDefault(positiveInteger, () => 3_600),
});

const readModel: Field<ModelConfig> = table<ModelConfig>({
  context_window: optional(positiveInteger),
  reasoning: optional(flag),
  max_output_tokens: optional(positiveInteger),
  rpm: optional(positiveInteger),
  tpm: optional(positiveInteger),
  input_price: optional(nonNegativeNumber),
  output_price: optional(nonNegativeNumber),
  cached_input_price: optional(nonNegativeNumber),
  cache_write_price: optional(nonNegativeNumber),
  owned_by: optional(text),
  display_name: optional(text),
});

const readGroup: Field<GroupConfig> = table<GroupConfig>({
  models: withDefault(list(text), () => ["*"]),
  price_multiplier: withDefault(nonNegativeNumber, () => 1),
  rpm: optional(positiveInteger),
  tpm: optional(positiveInteger),
  concurrency: optional(positiveInteger),
  account_rpm: optional(positiveInteger),
  account_tpm: optional(positiveInteger),
  account_concurrency: optional(positiveInteger),
});

/** An HTTP header name (a token, RFC 9110): what fetch accepts. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value: no line breaks or NUL, which would end or corrupt the header. */
const HEADER_VALUE = /^[^\r\n\0]*$/;

const readChannel: Field<ChannelConfig> = table<ChannelConfig>({
  name: nonEmptyText,
  protocol: oneOf(["chat", "responses", "messages", "echo"]),
  base_url: optional(httpUrl),
  keys: withDefault(list(text), () => []),
  models: list(nonEmptyText, "must list at least one model"),
  groups: withDefault(list(text), () => ["default"]),
  priority: withDefault(integer, () => 0),
  weight: withDefault(positiveInteger, () => 1),
  model_map: withDefault(tableOf(text), () => ({})),
  headers: withDefault(
    tableOf(matching(HEADER_VALUE, "must be a header value on one line"), {
      pattern: HEADER_NAME,
      message: "must be a header name: letters, digits and !#$%&'*+-.^_`|~",
    }),
    () => ({}),
  ),
  // No defaults here: a channel overrides only the timeouts it names.
  timeouts: orDefaults(table<Partial<Timeouts>>({
    connect: optional(positiveInteger),
    first_byte: optional(positiveInteger),
    idle: optional(positiveInteger),
    total: optional(positiveInteger),
  })),
});

const readConfig: Field<Config> = table<Config>({
  server: orDefaults(readServer),
  routing: orDefaults(readRouting),
  database: orDefaults(table<DatabaseConfig>({ url: withDefault(text, () => "file:tollgate.db") })),
  timeouts: orDefaults(readTimeouts),
  models: withDefault(tableOf(readModel), () => ({})),
  groups: withDefault(tableOf(readGroup), () => ({})),
  channels: withDefault(list(readChannel), () => []),
});

/** What one field cannot say alone: unique channel names, a base_url, groups that exist. */
function checkChannels(config: Config): Problem[] {
  const problems: Problem[] = [];
  const names = new Set<string>();
  config.channels.forEach((channel, index) => {
    const path = ["channels", index];
    if (names.has(channel.name)) {
      problems.push({
        path: [...path, "name"],
        message: `channel name "${channel.name}" is used twice`,
      });
    }
    names.add(channel.name);
    if (channel.protocol !== "echo" && !channel.base_url) {
      problems.push({
        path: [...path, "base_url"],
        message: `channel "${channel.name}" needs a base_url`,
      });
    }
    for (const group of channel.groups) {
      // Own keys only: `in` would take a group named "constructor" from Object.prototype.
      if (!Object.hasOwn(config.groups, group)) {
        problems.push({
          path: [...path, "groups"],
          message:
            `channel "${channel.name}" names group "${group}", which is not defined under [groups]`,
        });
      }
    }
  });
  return problems;
}
