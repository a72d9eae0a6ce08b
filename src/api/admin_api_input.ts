/**
 * What the admin API reads of a request, checked with zod before its handler runs: JSON
 * bodies whose fields are the CLI's flags, and query parameters with the flags' names (zod
 * checks their types and forms; the admin service checks their values). A body field the
 * API does not know is refused rather than ignored, so that a misspelt `quota` does not
 * make a key without a quota. Every refusal is a 400 naming the field.
 */
import type { MiddlewareHandler } from "hono";
import * as z from "zod/mini";
import { REQUEST_STATUSES } from "../admin/requests.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import { GatewayError } from "../errors.ts";
import { readEnvelope } from "../protocols/request.ts";
import { bodyLimits, parseJsonBody, readBody } from "./body.ts";
import { text, wholeNumber } from "./query.ts";
import type { GatewayEnv } from "./request_context.ts";

const flag = z.boolean({ error: "true or false" });
const usd = z.union([z.number(), z.string()], { error: "an amount of USD (a number)" });
const list = z.array(z.string({ error: "a string" }), { error: "an array of strings" });
const tokens = z.number({ error: "a whole number of tokens" });
const name = z.string({ error: "a string" });

/** A budget's fields: an amount, null (none) or "default"; and its period. */
const budgetFields = {
  budget_usd: z.optional(z.nullable(usd)),
  budget_period: z.optional(name),
};

/** `POST /admin/api/accounts`. */
export const NewAccountSchema = z.object({
  name,
  balance_usd: z.optional(usd),
  unlimited: z.optional(flag),
  ...budgetFields,
}, { error: "a JSON object" });

/** `PATCH /admin/api/accounts/{name}`. */
export const AccountChangeSchema = z.object(
  { enabled: z.optional(flag), ...budgetFields },
  { error: "a JSON object" },
);

/** `POST /admin/api/accounts/{name}/topup`. */
export const TopUpSchema = z.object({ usd, reason: z.optional(name) }, {
  error: "a JSON object",
});

/** `POST /admin/api/accounts/{name}/adjust`. */
export const AdjustSchema = z.object({ usd, reason: name }, { error: "a JSON object" });

/** `POST /admin/api/alerts/test`. */
export const AlertTestSchema = z.object({ webhook: z.optional(name) }, {
  error: "a JSON object",
});

/** `GET /admin/api/alerts`. */
export const AlertsQuerySchema = z.object({ limit: z.optional(wholeNumber) });

const keyFields = {
  group: z.optional(name),
  name: z.optional(z.nullable(name)),
  quota_tokens: z.optional(z.nullable(tokens)),
  expires_at: z.optional(z.nullable(name)),
  models: z.optional(z.nullable(list)),
  allow_ips: z.optional(z.nullable(list)),
  admin: z.optional(flag),
  ...budgetFields,
};

/** `POST /admin/api/keys`. */
export const NewKeySchema = z.object({ account: name, ...keyFields }, { error: "a JSON object" });

/** `PATCH /admin/api/keys/{id}`. */
export const KeyUpdateSchema = z.object(
  { ...keyFields, enabled: z.optional(flag) },
  { error: "a JSON object" },
);

/** `GET /admin/api/usage` and `GET /admin/api/me` (`tollgate usage`'s flags). */
export const UsageQuerySchema = z.object({
  account: z.optional(text),
  key: z.optional(text),
  model: z.optional(text),
  since: z.optional(text),
  until: z.optional(text),
  bucket: z.optional(z.enum(["hour", "day"], { error: '"hour" or "day"' })),
});

/** A row's id: a ledger row's, or a refusal's (negative). */
const rowId = z.pipe(
  z.string().check(z.regex(/^-?\d{1,15}$/, { error: "a row's id (a whole number)" })),
  z.transform(Number),
);

/** `GET /admin/api/requests` (`tollgate requests`'s flags). */
export const RequestsQuerySchema = z.object({
  id: z.optional(text),
  key: z.optional(text),
  account: z.optional(text),
  model: z.optional(text),
  status: z.optional(z.enum(REQUEST_STATUSES, { error: `one of ${REQUEST_STATUSES.join(", ")}` })),
  since: z.optional(text),
  until: z.optional(text),
  limit: z.optional(wholeNumber),
  offset: z.optional(wholeNumber),
  before: z.optional(rowId),
});

/** `GET /admin/api/keys`. */
export const KeysQuerySchema = z.object({ account: z.optional(text) });

/** `POST /admin/api/channels/{name}/test` (a body is optional). */
export const ChannelTestSchema = z.object({ model: z.optional(text) }, {
  error: "a JSON object",
});

/**
 * The body of a request, read within the request's limits and checked against `schema`
 * (unknown fields refused): the handler's `c.req.valid("json")`. With `optional`, a request
 * without a body is read as no fields.
 */
export function validBody<S extends z.ZodMiniObject>(
  schema: S,
  clock: AlarmClock,
  { optional = false }: { optional?: boolean } = {},
): MiddlewareHandler<
  GatewayEnv,
  string,
  { in: { json: z.input<S> }; out: { json: z.output<S> } }
> {
  const known = Object.keys(schema.def.shape);
  return async function validBody(c, next) {
    const bytes = await readBody(c.req.raw, bodyLimits(c.get("snapshot").config), clock);
    if (optional && bytes.length === 0) {
      c.req.addValidatedData("json", {});
      return await next();
    }
    const { value } = parseJsonBody(bytes);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
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
    c.req.addValidatedData("json", readEnvelope(schema, value).fields as z.output<S>);
    await next();
  };
}

/** A parameter's value; undefined when absent or empty (an empty form field). */
export function optional(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name)?.trim();
  return value === undefined || value === "" ? undefined : value;
}
