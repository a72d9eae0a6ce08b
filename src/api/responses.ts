/**
 * GET and DELETE /v1/responses/{id}, and GET /v1/responses/{id}/input_items, as OpenAI
 * answers them: the account's stored responses only; another account's id, a deleted or
 * an expired one is 404.
 */
import type { Context } from "hono";
import * as z from "zod/mini";
import { GatewayError } from "../errors.ts";
import type { Item } from "../stored/items.ts";
import type { StoredResponses } from "../stored/stored_responses.ts";
import { validQuery } from "./query.ts";
import type { GatewayEnv } from "./request_context.ts";

/** A handler of a stored response, by the id in its path; none is stored without a store. */
type StoredHandler = (c: Context<GatewayEnv>) => Promise<Response>;

/** GET /v1/responses/{id}: the response object as the client got it. */
export function retrieveResponse(store: StoredResponses | undefined): StoredHandler {
  return async function retrieveResponse(c) {
    const id = c.req.param("id")!;
    const row = await store?.find(c.get("principal").accountId, id);
    if (!row) throw responseNotFound(id);
    return new Response(row.response, { headers: { "content-type": "application/json" } });
  };
}

/** DELETE /v1/responses/{id}: removes it and the items it added. */
export function deleteResponse(store: StoredResponses | undefined): StoredHandler {
  return async function deleteResponse(c) {
    const id = c.req.param("id")!;
    if (!await store?.remove(c.get("principal").accountId, id)) throw responseNotFound(id);
    return Response.json({ id, object: "response", deleted: true });
  };
}

/** The query of GET /v1/responses/{id}/input_items (OpenAI's `InputItemListParams`). */
const InputItemsQuerySchema = z.object({
  order: z.optional(z.enum(["asc", "desc"], { error: '"asc" or "desc"' })),
  limit: z.optional(
    z.pipe(
      z.string().check(z.regex(/^0*(100|[1-9]\d?)$/, { error: "an integer from 1 to 100" })),
      z.transform(Number),
    ),
  ),
  after: z.optional(z.string()),
  before: z.optional(z.string()),
});

/** Checks the query of GET /v1/responses/{id}/input_items (`c.req.valid("query")`). */
export const inputItemsQuery = validQuery(InputItemsQuerySchema);

/** GET /v1/responses/{id}/input_items: a page of the items that led to it. */
export function listInputItems(store: StoredResponses | undefined) {
  return async function listInputItems(
    c: Context<GatewayEnv, string, { out: { query: z.output<typeof InputItemsQuerySchema> } }>,
  ): Promise<Response> {
    const id = c.req.param("id")!;
    const all = await store?.inputItems(c.get("principal").accountId, id);
    if (!all) throw responseNotFound(id);
    const { order = "desc", limit = 20, after, before } = c.req.valid("query");
    if (order === "desc") all.reverse();
    const page = pageOf(all, after ?? null, before ?? null, limit);
    return Response.json({
      object: "list",
      data: page.items,
      first_id: page.items[0]?.id ?? null,
      last_id: page.items.at(-1)?.id ?? null,
      has_more: page.more,
    });
  };
}

/** The items after `after` (or before `before`), at most `limit`, and whether more follow. */
function pageOf(
  items: Item[],
  after: string | null,
  before: string | null,
  limit: number,
): { items: Item[]; more: boolean } {
  let start = 0;
  let end = items.length;
  if (after !== null) start = indexOf(items, after, "after") + 1;
  if (before !== null) end = indexOf(items, before, "before");
  if (before !== null && after === null) start = Math.max(start, end - limit);
  const page = items.slice(start, Math.min(end, start + limit));
  return { items: page, more: start + page.length < end };
}

function indexOf(items: Item[], id: string, param: string): number {
  const index = items.findIndex((item) => item.id === id);
  if (index < 0) {
    throw new GatewayError(
      400,
      "invalid_request",
      `Invalid query: \`${param}\` names no input item of this response: ${JSON.stringify(id)}.`,
      { param },
    );
  }
  return index;
}

function responseNotFound(id: string): GatewayError {
  return new GatewayError(
    404,
    "not_found",
    `Response with id ${
      JSON.stringify(id)
    } not found: it was never stored for this account, or it was deleted or has expired.`,
  );
}
