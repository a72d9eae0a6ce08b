/**
 * GET and DELETE /v1/responses/{id}, and GET /v1/responses/{id}/input_items, as OpenAI
 * answers them: the account's stored responses only; another account's id, a deleted or
 * an expired one is 404.
 */
import { GatewayError } from "../errors.ts";
import type { KeyRoute } from "./request_context.ts";
import type { Item } from "../stored/items.ts";
import type { StoredResponses } from "../stored/stored_responses.ts";

/** GET /v1/responses/{id}: the response object as the client got it. */
export function retrieveResponse(store: StoredResponses, id: string): KeyRoute {
  return async function retrieveResponse(_context, principal) {
    const row = await store.find(principal.accountId, id);
    if (!row) throw responseNotFound(id);
    return new Response(row.response, { headers: { "content-type": "application/json" } });
  };
}

/** DELETE /v1/responses/{id}: removes it and the items it added. */
export function deleteResponse(store: StoredResponses, id: string): KeyRoute {
  return async function deleteResponse(_context, principal) {
    if (!await store.remove(principal.accountId, id)) throw responseNotFound(id);
    return Response.json({ id, object: "response", deleted: true });
  };
}

/** GET /v1/responses/{id}/input_items: a page of the items that led to it. */
export function listInputItems(store: StoredResponses, id: string): KeyRoute {
  return async function listInputItems(context, principal) {
    const all = await store.inputItems(principal.accountId, id);
    if (!all) throw responseNotFound(id);
    const query = new URLSearchParams(context.search);
    const order = query.get("order") ?? "desc";
    if (order !== "asc" && order !== "desc") {
      throw badQuery("order", `must be "asc" or "desc", got ${JSON.stringify(order)}`);
    }
    const limit = Number(query.get("limit") ?? 20);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      throw badQuery("limit", "must be an integer from 1 to 100");
    }
    if (order === "desc") all.reverse();
    const page = pageOf(all, query.get("after"), query.get("before"), limit);
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
    throw badQuery(param, `names no input item of this response: ${JSON.stringify(id)}`);
  }
  return index;
}

function badQuery(param: string, why: string): GatewayError {
  return new GatewayError(400, "invalid_request", `Invalid query: \`${param}\` ${why}.`, { param });
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
