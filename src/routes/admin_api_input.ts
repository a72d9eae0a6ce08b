/**
 * What the admin API reads of a request: JSON bodies whose fields are the CLI's flags (zod
 * checks their types; the admin service checks their values), and query parameters. A field
 * the API does not know is refused rather than ignored, so that a misspelt `quota` does not
 * make a key without a quota. Every refusal is a 400 naming the field.
 */
import * as z from "zod/mini";
import type { RequestsQuery } from "../admin/requests.ts";
import type { Bucket, UsageQuery } from "../admin/usage.ts";
import { GatewayError } from "../errors.ts";
import type { RequestContext } from "../middleware/request_context.ts";
import { readEnvelope } from "../protocols/request.ts";
import { readJsonBody } from "../relay/body.ts";
import type { AlarmClock } from "../upstream/alarm_clock.ts";

const text = z.string({ error: "a string" });
const flag = z.boolean({ error: "true or false" });
const usd = z.union([z.number(), z.string()], { error: "an amount of USD (a number)" });
const list = z.array(text, { error: "an array of strings" });
const tokens = z.number({ error: "a whole number of tokens" });

/** `POST /admin/api/accounts`. */
export const NewAccountSchema = z.object({
  name: text,
  balance_usd: z.optional(usd),
  unlimited: z.optional(flag),
  budget_usd: z.optional(z.nullable(usd)),
  budget_period: z.optional(text),
}, { error: "a JSON object" });

/** A budget's fields: an amount, null (none) or "default"; and its period. */
const budgetFields = {
  budget_usd: z.optional(z.nullable(usd)),
  budget_period: z.optional(text),
};

/** `PATCH /admin/api/accounts/{name}`. */
export const AccountChangeSchema = z.object(
  { enabled: z.optional(flag), ...budgetFields },
  { error: "a JSON object" },
);

/** `POST /admin/api/accounts/{name}/topup`. */
export const TopUpSchema = z.object({ usd, reason: z.optional(text) }, {
  error: "a JSON object",
});

const keyFields = {
  group: z.optional(text),
  name: z.optional(z.nullable(text)),
  quota_tokens: z.optional(z.nullable(tokens)),
  expires_at: z.optional(z.nullable(text)),
  models: z.optional(z.nullable(list)),
  allow_ips: z.optional(z.nullable(list)),
  admin: z.optional(flag),
  budget_usd: z.optional(z.nullable(usd)),
  budget_period: z.optional(text),
};

/** `POST /admin/api/keys`. */
export const NewKeySchema = z.object({ account: text, ...keyFields }, { error: "a JSON object" });

/** `PATCH /admin/api/keys/{id}`. */
export const KeyUpdateSchema = z.object(
  { ...keyFields, enabled: z.optional(flag) },
  { error: "a JSON object" },
);

/** The body of a request, checked against `schema`; unknown fields refused. */
export async function readInput<S extends z.ZodMiniObject>(
  context: RequestContext,
  schema: S,
  clock: AlarmClock,
): Promise<z.output<S>> {
  const { config } = context.snapshot;
  const { value } = await readJsonBody(context, {
    maxBytes: config.server.max_body_bytes,
    timeoutMs: config.timeouts.body,
  }, clock);
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const known = Object.keys(schema.def.shape);
    const unknown = Object.keys(value).find((name) => !known.includes(name));
    if (unknown !== undefined) {
      throw new GatewayError(
        400,
        "invalid_request",
        `Invalid request: unknown field \`${unknown}\`; the fields are ${known.join(", ")}.`,
        { param: unknown },
      );
    }
  }
  return readEnvelope(schema, value).fields as z.output<S>;
}

/** A query's parameters as the service's usage query (`GET /usage`, `GET /me`). */
export function usageQuery(query: URLSearchParams): UsageQuery {
  return {
    account: optional(query, "account"),
    key: optional(query, "key"),
    model: optional(query, "model"),
    since: optional(query, "since"),
    until: optional(query, "until"),
    bucket: optional(query, "bucket") as Bucket | undefined,
  };
}

/** A query's parameters as the service's requests query (`GET /requests`). */
export function requestsQuery(query: URLSearchParams): RequestsQuery {
  return {
    id: optional(query, "id"),
    key: optional(query, "key"),
    account: optional(query, "account"),
    model: optional(query, "model"),
    status: optional(query, "status"),
    since: optional(query, "since"),
    until: optional(query, "until"),
    limit: whole(query, "limit"),
    offset: whole(query, "offset"),
    before: whole(query, "before"),
  };
}

/** A parameter's value; undefined when absent or empty (an empty form field). */
export function optional(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name)?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** A whole-number parameter; 400 when it is something else (the service checks its range). */
function whole(query: URLSearchParams, name: string): number | undefined {
  const value = optional(query, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value)) {
    throw new GatewayError(
      400,
      "invalid_request",
      `Invalid ${name} "${value}": give a whole number.`,
      { param: name },
    );
  }
  return Number(value);
}
