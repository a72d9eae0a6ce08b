/**
 * Query parameters checked against a zod schema, through Hono's validator: each parameter's
 * first value, trimmed, an empty one not given (an empty form field); the first parameter at
 * fault is the client's 400 `invalid_request`, naming it. A parameter the schema does not
 * name is left alone, as HTTP APIs do.
 */
import { validator } from "hono/validator";
import * as z from "zod/mini";
import { GatewayError } from "../errors.ts";

/** The query's parameters as `schema` reads them (`c.req.valid("query")`), or the 400. */
export function validQuery<S extends z.ZodMiniObject>(schema: S) {
  return validator("query", (value) => readQuery(schema, value));
}

/** The given parameters of a query: the first value of each, trimmed; empty ones left out. */
function givenOf(query: URLSearchParams | Record<string, string | string[]>) {
  // No prototype: a parameter named `constructor` or `__proto__` is a parameter like any other.
  const given: Record<string, string> = Object.create(null);
  const entries = query instanceof URLSearchParams ? query : Object.entries(query);
  for (const [name, values] of entries) {
    const value = (Array.isArray(values) ? values[0] : values)?.trim();
    if (value && !Object.hasOwn(given, name)) given[name] = value;
  }
  return given;
}

/** `query` read by `schema`; throws the 400 naming the first parameter at fault. */
export function readQuery<S extends z.ZodMiniObject>(
  schema: S,
  query: URLSearchParams | Record<string, string | string[]>,
): z.output<S> {
  const given = givenOf(query);
  const result = schema.safeParse(given);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = String(issue?.path[0] ?? "query");
  throw new GatewayError(
    400,
    "invalid_request",
    `Invalid query: \`${param}\` must be ${issue?.message ?? "valid"}, got ${
      JSON.stringify(given[param]?.slice(0, 100) ?? null)
    }.`,
    { param },
  );
}

/** A whole number written in digits. */
export const wholeNumber = z.pipe(
  z.string().check(z.regex(/^\d{1,15}$/, { error: "a whole number" })),
  z.transform(Number),
);

/** A text parameter. */
export const text = z.string();
