/**
 * Input items as the responses API keeps them: a string `input` is one user message, and
 * every item has an id (OpenAI's `ResponseItem`: `input_items` lists them, and
 * `item_reference` names them). Ids tollgate gave are its own: they never go upstream.
 */

/** One responses item (OpenAI `ResponseInputItem` / `ResponseItem`). */
export type Item = Record<string, unknown>;

/** A client's `input` as items: a string is one user message. */
export function inputItems(input: unknown): Item[] {
  if (typeof input === "string") {
    return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  }
  return Array.isArray(input) ? input.filter(isItem) : [];
}

/** The id prefix of a kind of item, as OpenAI's ids have them. */
const ID_PREFIX: Record<string, string> = {
  message: "msg_",
  function_call: "fc_",
  function_call_output: "fco_",
  custom_tool_call: "ctc_",
  custom_tool_call_output: "ctco_",
  reasoning: "rs_",
};

/** Each item with an id: its own, or a fresh one (`newId(prefix)`) in a copy. */
export function withIds(items: Item[], newId: (prefix: string) => string): Item[] {
  return items.map((item) => {
    if (typeof item.id === "string" && item.id !== "") return item;
    const type = typeof item.type === "string" ? item.type : "message";
    // `EasyInputMessage` may leave out its `type`; the list names it.
    return { id: newId(ID_PREFIX[type] ?? "item_"), type, ...item };
  });
}

/**
 * An item from the store as it goes upstream: without its id, which names it in
 * tollgate's store, not the channel's (a responses upstream asked to look it up would not
 * find it), and without output-only fields the API refuses in input.
 */
export function upstreamItem(item: Item): Item {
  const { id: _id, ...rest } = item;
  return rest;
}

function isItem(value: unknown): value is Item {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
