/** The config file's schema (zod): what `config.toml` may say, with its defaults. */
import { z } from "zod";

/** The three wire protocols tollgate serves as entry points. */
export const ENTRY_PROTOCOLS = ["chat", "responses", "messages"] as const;
/** An entry-point protocol: chat completions, responses or messages. */
export type EntryProtocol = typeof ENTRY_PROTOCOLS[number];
/** What a channel's upstream speaks: an entry protocol or the built-in echo. */
export type ChannelProtocol = EntryProtocol | "echo";

const positiveInt = z.number().int().positive();
const price = z.number().nonnegative();

/** Timeouts in milliseconds; every field optional so channels can override some. */
export const TimeoutsSchema = z.strictObject({
  connect: positiveInt.default(10_000),
  first_byte: positiveInt.default(120_000),
  idle: positiveInt.default(120_000),
  total: positiveInt.default(900_000),
});
/** The resolved timeouts of a request. */
export type Timeouts = z.infer<typeof TimeoutsSchema>;

export const ServerSchema = z.strictObject({
  listen: z.string().default("127.0.0.1:8080"),
  entry_points: z.array(z.enum(ENTRY_PROTOCOLS)).default([...ENTRY_PROTOCOLS]),
  max_body_bytes: positiveInt.default(8_388_608),
  trusted_proxies: z.array(z.string()).default([]),
  /** SIGTERM/SIGINT: how long requests in flight get to finish before they are ended. */
  shutdown_grace_ms: z.number().int().nonnegative().default(30_000),
  /** A keep-alive (SSE comment, or messages `ping`) during upstream silence this long; 0: off. */
  keepalive_ms: z.number().int().nonnegative().default(15_000),
  /** One line per request on stdout. */
  request_log: z.boolean().default(true),
  /** The request log's format: text for a terminal, JSON for a log shipper. */
  log_format: z.enum(["text", "json"]).default("text"),
  /** `GET /metrics` in the Prometheus text format. */
  metrics: z.boolean().default(true),
  /** When set, `GET /metrics` needs `Authorization: Bearer <metrics_token>`. */
  metrics_token: z.string().default(""),
});

export const ModelSchema = z.strictObject({
  context_window: positiveInt.optional(),
  /**
   * The model reasons (takes a reasoning effort or thinking budget). Only then does a
   * translated request carry the client's reasoning settings: other models reject them.
   */
  reasoning: z.boolean().optional(),
  max_output_tokens: positiveInt.optional(),
  /** Requests per minute to this model, across all keys. */
  rpm: positiveInt.optional(),
  /** Tokens (input plus output) per minute of this model, across all keys. */
  tpm: positiveInt.optional(),
  input_price: price.optional(),
  output_price: price.optional(),
  cached_input_price: price.optional(),
  cache_write_price: price.optional(),
  owned_by: z.string().optional(),
  display_name: z.string().optional(),
});
/** Metadata of one model that the upstream model list does not carry. */
export type ModelConfig = z.infer<typeof ModelSchema>;

export const GroupSchema = z.strictObject({
  models: z.array(z.string()).default(["*"]),
  price_multiplier: price.default(1),
  /** Per key: requests per minute, tokens (input plus output) per minute, requests at once. */
  rpm: positiveInt.optional(),
  tpm: positiveInt.optional(),
  concurrency: positiveInt.optional(),
  /** Per account, across its keys: the same three limits. */
  account_rpm: positiveInt.optional(),
  account_tpm: positiveInt.optional(),
  account_concurrency: positiveInt.optional(),
});
/** A group: which models its keys may use, at what price and rate. */
export type GroupConfig = z.infer<typeof GroupSchema>;

/** An HTTP header name (a token, RFC 9110): what fetch accepts. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value: no line breaks or NUL, which would end or corrupt the header. */
const HEADER_VALUE = /^[^\r\n\0]*$/;

export const ChannelSchema = z.strictObject({
  name: z.string().min(1),
  protocol: z.enum(["chat", "responses", "messages", "echo"]),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  keys: z.array(z.string()).default([]),
  models: z.array(z.string().min(1)).min(1),
  groups: z.array(z.string()).default(["default"]),
  priority: z.number().int().default(0),
  weight: z.number().int().positive().default(1),
  model_map: z.record(z.string(), z.string()).default({}),
  headers: z.record(
    z.string().regex(HEADER_NAME, "must be a header name: letters, digits and !#$%&'*+-.^_`|~"),
    z.string().regex(HEADER_VALUE, "must be a header value on one line"),
  ).default({}),
  // No defaults here: a channel overrides only the timeouts it names.
  timeouts: z.strictObject({
    connect: positiveInt.optional(),
    first_byte: positiveInt.optional(),
    idle: positiveInt.optional(),
    total: positiveInt.optional(),
  }).default({}),
});
/** One upstream channel: where requests for its models may be sent. */
export type ChannelConfig = z.infer<typeof ChannelSchema>;

export const ConfigSchema = z.strictObject({
  server: ServerSchema.default(ServerSchema.parse({})),
  database: z.strictObject({ url: z.string().default("file:tollgate.db") }).default({
    url: "file:tollgate.db",
  }),
  timeouts: TimeoutsSchema.default(TimeoutsSchema.parse({})),
  models: z.record(z.string(), ModelSchema).default({}),
  groups: z.record(z.string(), GroupSchema).default({}),
  channels: z.array(ChannelSchema).default([]),
}).superRefine((config, ctx) => {
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
      if (!(group in config.groups)) {
        ctx.addIssue({
          code: "custom",
          path: [...path, "groups"],
          message:
            `channel "${channel.name}" names group "${group}", which is not defined under [groups]`,
        });
      }
    }
  });
});
/** The whole validated config. */
export type Config = z.infer<typeof ConfigSchema>;
