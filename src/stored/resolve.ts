/**
 * A responses request's conversation, resolved from the store: `previous_response_id`
 * brings the previous turns' input and output (the chain of turns stored before it) before
 * the request's own input, and each `item_reference` is replaced by the item it names. The
 * channel, whatever its protocol, is then sent the whole conversation as items (design.md,
 * "Stored responses").
 */
import { GatewayError } from "../errors.ts";
import type { StoredResponseRows, TurnRow } from "../db/stored_responses.ts";
import { inputItems, type Item, upstreamItem, withIds } from "./items.ts";

/** A request's conversation: what goes upstream and what is kept with its answer. */
export interface ResolvedTurn {
  /** The body for the channel: the client's own when nothing was resolved. */
  body: Record<string, unknown>;
  /** The turn it continues, if any: the link its answer is kept with. */
  previousId: string | null;
  /** The input items this request gave, resolved, with ids (kept as its `input_items`). */
  ownItems: Item[];
  /** The items this request added, with ids (kept for `item_reference`). */
  newItems: Item[];
}

/**
 * Every item of a chain of turns (the first turn first), as the turn after its last one
 * gets them: each turn's input items, then its output.
 */
export function conversationOf(chain: readonly TurnRow[]): Item[] {
  return chain.flatMap((turn) => [
    ...JSON.parse(turn.input_items) as Item[],
    ...(JSON.parse(turn.response) as { output?: Item[] }).output ?? [],
  ]);
}

/** What resolving reads: the account's rows, the clock and fresh ids. */
export interface ResolveDeps {
  rows: StoredResponseRows;
  accountId: number;
  now: number;
  newId(prefix: string): string;
}

/** Resolves `body`'s previous response and item references; 400s for what is not found. */
export async function resolveTurn(
  body: Record<string, unknown>,
  deps: ResolveDeps,
): Promise<ResolvedTurn> {
  const previousId = typeof body.previous_response_id === "string" &&
      body.previous_response_id !== ""
    ? body.previous_response_id
    : null;
  const own = inputItems(body.input);
  const references = own.some((item) => item.type === "item_reference");
  if (previousId === null && !references) {
    const items = withIds(own, deps.newId);
    return { body, previousId: null, ownItems: items, newItems: items };
  }
  let prior: Item[] = [];
  if (previousId !== null) {
    const chain = await deps.rows.chain(deps.accountId, previousId, deps.now);
    if (chain.length === 0) throw previousNotFound(previousId);
    prior = conversationOf(chain);
  }
  const resolved = await resolveReferences(own, prior, deps);
  const newItems = withIds(resolved.map((entry) => entry.item), deps.newId);
  const upstream: Record<string, unknown> = {
    ...body,
    input: [
      ...prior.map(upstreamItem),
      ...resolved.map((entry) => entry.stored ? upstreamItem(entry.item) : entry.item),
    ],
  };
  delete upstream.previous_response_id;
  return {
    body: upstream,
    previousId,
    ownItems: newItems,
    newItems: newItems.filter((_, i) => !resolved[i]!.stored),
  };
}

/** The request's items with each reference replaced by its item, and whether it was stored. */
async function resolveReferences(
  own: Item[],
  prior: Item[],
  deps: ResolveDeps,
): Promise<{ item: Item; stored: boolean }[]> {
  const ids = own.filter((item) => item.type === "item_reference").map((item) => item.id);
  const inChain = new Map(prior.map((item) => [item.id, item]));
  const wanted = ids.filter((id): id is string => typeof id === "string" && !inChain.has(id));
  const found = wanted.length > 0
    ? await deps.rows.items(deps.accountId, wanted, deps.now)
    : new Map<string, string>();
  return own.map((item, i) => {
    if (item.type !== "item_reference") return { item, stored: false };
    const id = item.id;
    const stored = typeof id === "string" ? inChain.get(id) ?? parsed(found.get(id)) : undefined;
    if (!stored) {
      throw new GatewayError(
        400,
        "invalid_request",
        `Item with id ${JSON.stringify(id)} not found: an item_reference must name an item of ` +
          "a response stored for this account (not deleted, not expired). Send the item itself.",
        { param: `input[${i}].id` },
      );
    }
    return { item: stored, stored: true };
  });
}

function parsed(text: string | undefined): Item | undefined {
  return text === undefined ? undefined : JSON.parse(text) as Item;
}

/** The 400 of a `previous_response_id` the account has no live response of. */
export function previousNotFound(id: string): GatewayError {
  return new GatewayError(
    400,
    "previous_response_not_found",
    `Previous response with id ${JSON.stringify(id)} not found: it was never stored for ` +
      "this account, or it was deleted or has expired. Send the conversation's items instead.",
    { param: "previous_response_id" },
  );
}
