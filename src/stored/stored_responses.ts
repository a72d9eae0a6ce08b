/**
 * Stored responses (design.md, "Stored responses"): a `/v1/responses` request is resolved
 * against the store before it is routed, and its answer is kept, with the input items its
 * turn added and a link to the turn it continues, once the client has it whole (a stream
 * once it completed). Built from its dependencies; the rows are opened on first use.
 */
import type { Principal } from "../auth/principal.ts";
import type { Config } from "../config/schema.ts";
import type { StoredResponseRow } from "../db/schema.ts";
import type { StoredResponseRows } from "../db/stored_responses.ts";
import { orderedId } from "../ids.ts";
import type { StreamConverter } from "../translate/translation.ts";
import {
  bodyText,
  type ResponseObject,
  responseOf,
  watchFinalResponse,
  type WholeBody,
} from "./capture.ts";
import { type Item, withIds } from "./items.ts";
import { conversationOf, type ResolvedTurn, resolveTurn } from "./resolve.ts";

const DAY_MS = 86_400_000;

/** The store of responses, as the relay and the routes use it. */
export interface StoredResponses {
  /**
   * Resolves a responses request of `principal` and says how to keep its answer; undefined
   * when the config keeps nothing, or the request neither continues a stored conversation
   * nor asks to be kept (`store: false`).
   */
  begin(
    config: Config,
    principal: Principal,
    body: Record<string, unknown>,
  ): Promise<StoredTurn | undefined>;
  /** The account's live response with this id. */
  find(accountId: number, id: string): Promise<StoredResponseRow | undefined>;
  /**
   * Every input item that led to the account's live response with this id, the first
   * first; undefined when there is no such response.
   */
  inputItems(accountId: number, id: string): Promise<Item[] | undefined>;
  /** Removes the account's response with this id; whether there was one. */
  remove(accountId: number, id: string): Promise<boolean>;
  /** Removes responses past their retention, a batch at a time; how many. */
  expire(): Promise<number>;
}

/** One request's turn of a conversation. */
export interface StoredTurn {
  /** The body for the channel: the whole conversation when it continued one. */
  readonly body: Record<string, unknown>;
  /** Whether `body` is not the client's own (its bytes must be written anew). */
  readonly resolved: boolean;
  /** Keeps a whole answer, given the body the client got; resolves once it is written. */
  keepWhole(answer: WholeBody): Promise<void>;
  /** The stream's converter, noting its final response for `keepStream`. */
  watch(converter: StreamConverter): StreamConverter;
  /** Keeps the stream's final response, if it completed; resolves once it is written. */
  keepStream(): Promise<void>;
}

/** What the store is built from. */
export interface StoredResponsesDeps {
  rows: () => Promise<StoredResponseRows>;
  now: () => number;
  newId?: (prefix: string) => string;
}

/** Up to this many expired responses are removed in one transaction. */
const EXPIRY_BATCH = 500;

/** Stored responses over their rows. */
export function createStoredResponses(deps: StoredResponsesDeps): StoredResponses {
  // Ordered, as the items' table is keyed by them (src/ids.ts).
  const newId = deps.newId ?? ((prefix: string) => orderedId(prefix, deps.now()));
  let retentionMs = 30 * DAY_MS;
  return {
    async begin(config, principal, body) {
      const { store, retention_days } = config.responses;
      if (!store) return undefined;
      retentionMs = retention_days * DAY_MS;
      const keep = body.store !== false;
      const continues = typeof body.previous_response_id === "string" ||
        (Array.isArray(body.input) && body.input.some(isReference));
      if (!keep && !continues) return undefined;
      const rows = await deps.rows();
      const now = deps.now();
      const turn = await resolveTurn(body, { rows, accountId: principal.accountId, now, newId });
      return storedTurn(
        turn,
        turn.body !== body,
        keep ? (response, body) => save(rows, principal, turn, response, body) : undefined,
      );
    },
    async find(accountId, id) {
      return await (await deps.rows()).find(accountId, id, deps.now());
    },
    async inputItems(accountId, id) {
      const chain = await (await deps.rows()).chain(accountId, id, deps.now());
      if (chain.length === 0) return undefined;
      // Its own input after the conversation before it, its output left out.
      return [...conversationOf(chain.slice(0, -1)), ...JSON.parse(chain.at(-1)!.input_items)];
    },
    async remove(accountId, id) {
      return await (await deps.rows()).remove(accountId, id, deps.now());
    },
    async expire() {
      return await (await deps.rows()).expire(deps.now(), EXPIRY_BATCH);
    },
  };

  function save(
    rows: StoredResponseRows,
    principal: Principal,
    turn: ResolvedTurn,
    response: ResponseObject,
    body: WholeBody["body"] | undefined,
  ): Promise<void> {
    const now = deps.now();
    const output = withIds(response.output, newId);
    // The client's own text when no output item needed an id (a translated answer's have theirs).
    const named = body !== undefined && output.every((item, i) => item === response.output[i]);
    const items: [string, string][] = [...turn.newItems, ...output].map((item: Item) => [
      item.id as string,
      JSON.stringify(item),
    ]);
    return rows.insert({
      row: {
        id: response.id,
        account_id: principal.accountId,
        key_id: principal.id,
        model: typeof response.model === "string" ? response.model : "",
        created_at: now,
        expires_at: now + retentionMs,
        response: named ? bodyText(body) : JSON.stringify({ ...response, output }),
        input_items: JSON.stringify(turn.ownItems),
        previous_response_id: turn.previousId,
      },
      items,
    });
  }
}

/**
 * A turn over its resolution; `save` (given the body the client got, if whole) undefined
 * when the client asked not to be kept.
 */
function storedTurn(
  turn: ResolvedTurn,
  resolved: boolean,
  save: ((response: ResponseObject, body?: WholeBody["body"]) => Promise<void>) | undefined,
): StoredTurn {
  let final: ResponseObject | undefined;
  const keep = (response: ResponseObject | undefined, body?: WholeBody["body"]) =>
    save && response ? save(response, body) : Promise.resolve();
  return {
    body: turn.body,
    resolved,
    keepWhole: (answer) => keep(responseOf(answer.json), answer.body),
    watch: (converter) =>
      save ? watchFinalResponse(converter, (response) => final = response) : converter,
    keepStream: () => keep(final),
  };
}

function isReference(item: unknown): boolean {
  return typeof item === "object" && item !== null &&
    (item as Record<string, unknown>).type === "item_reference";
}
