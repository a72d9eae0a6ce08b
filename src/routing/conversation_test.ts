import assert from "node:assert/strict";
import type { EntryProtocol } from "../config/schema.ts";
import type { ProtocolName } from "../protocols/types.ts";
import { conversationName, NAME_SOURCE_CHARS, SAMPLE_CHARS } from "./conversation.ts";

const SYSTEM = "You are a careful assistant.";

/** The name of a request with `body`, from key `key_a` for model `m` unless `cues` says. */
function name(
  entry: ProtocolName,
  body: Record<string, unknown>,
  cues: { headers?: Headers; keyId?: string; model?: string; chain?: string } = {},
): string {
  const model = cues.model ?? "m";
  return conversationName(
    { protocol: entry, model, stream: false, body },
    cues.headers ?? new Headers(),
    cues.keyId ?? "key_a",
    cues.chain,
  );
}

/** The first turn and the next of one conversation, in each protocol. */
const TURNS: Record<
  Exclude<EntryProtocol, "gemini">,
  [Record<string, unknown>, Record<string, unknown>]
> = {
  chat: [
    { messages: [{ role: "system", content: SYSTEM }, { role: "user", content: "Plan a trip." }] },
    {
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: [{ type: "text", text: "Plan a trip." }] },
        { role: "assistant", content: "Where to?" },
        { role: "user", content: "Lisbon." },
      ],
    },
  ],
  responses: [
    { instructions: SYSTEM, input: "Plan a trip." },
    {
      instructions: SYSTEM,
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "Plan a trip." }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Where?" }] },
        { type: "function_call_output", call_id: "c1", output: "sunny" },
        { role: "user", content: "Lisbon." },
      ],
    },
  ],
  messages: [
    { system: SYSTEM, messages: [{ role: "user", content: "Plan a trip." }] },
    {
      system: [{ type: "text", text: SYSTEM, cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: "Plan a trip." },
        { role: "assistant", content: [{ type: "text", text: "Where to?" }] },
        { role: "user", content: "Lisbon." },
      ],
    },
  ],
};

for (const entry of ["chat", "responses", "messages"] as const) {
  Deno.test(`conversation name (${entry}): every turn of a conversation has the first's name`, () => {
    const [first, next] = TURNS[entry];
    assert.match(name(entry, first), /^[A-Za-z0-9_-]{22}$/);
    assert.equal(name(entry, next), name(entry, first));
    // Another opening, another key or another model is another conversation.
    const other = structuredClone(first);
    const turns = (other.messages ?? other.input) as unknown;
    if (typeof turns === "string") other.input = "Plan a dinner.";
    else (turns as { content: string }[]).at(-1)!.content = "Plan a dinner.";
    assert.notEqual(name(entry, other), name(entry, first));
    assert.notEqual(name(entry, first, { keyId: "key_b" }), name(entry, first));
    assert.notEqual(name(entry, first, { model: "m2" }), name(entry, first));
  });
}

Deno.test("conversation name: a long text is named by its head and tail", () => {
  const body = (system: string, first: string) => ({
    system,
    messages: [{ role: "user", content: first }],
  });
  const middle = "x".repeat(2 * SAMPLE_CHARS);
  const boilerplate = "<context>" + middle + "</context>";
  // What differs only in the middle of a long text names the same conversation...
  assert.equal(
    name("messages", body(`a${middle}b`, "hi")),
    name("messages", body(`a${middle}X${middle}b`, "hi")),
  );
  // ...what differs at either end does not: a system prompt ending in its working
  // directory, a first message whose task follows the same long boilerplate.
  assert.notEqual(
    name("messages", body(`${middle}cwd=/a`, "hi")),
    name("messages", body(`${middle}cwd=/b`, "hi")),
  );
  assert.notEqual(
    name("messages", body("S", `${boilerplate} Fix the bug.`)),
    name("messages", body("S", `${boilerplate} Write the docs.`)),
  );
  // The system prompt and the first message are told apart: moving text between them counts.
  assert.notEqual(name("messages", body("ab", "")), name("messages", body("a", "b")));
  // A client's own name counts by its first KB.
  const key = "k".repeat(NAME_SOURCE_CHARS);
  assert.equal(
    name("chat", { prompt_cache_key: `${key}1` }),
    name("chat", { prompt_cache_key: `${key}2` }),
  );
});

Deno.test("conversation name (gemini): its turns' parts and its system instruction name it", () => {
  const system = { parts: [{ text: SYSTEM }] };
  const first = { systemInstruction: system, contents: [{ parts: [{ text: "Plan a trip." }] }] };
  const next = {
    systemInstruction: system,
    contents: [
      { role: "user", parts: [{ text: "Plan a trip." }] },
      { role: "model", parts: [{ text: "Where to?" }] },
      { role: "user", parts: [{ text: "Lisbon." }] },
    ],
  };
  assert.equal(name("gemini", next), name("gemini", first));
  // What the prompt says counts: another opening, another system instruction.
  const other = { ...first, contents: [{ role: "user", parts: [{ text: "Plan a dinner." }] }] };
  assert.notEqual(name("gemini", other), name("gemini", first));
  const terse = { ...first, systemInstruction: { parts: [{ text: "Be terse." }] } };
  assert.notEqual(name("gemini", terse), name("gemini", first));
});

/** Requests that name their conversation, and what else must (or must not) share the name. */
const NAMED: [string, () => [string, string], boolean][] = [
  [
    "prompt_cache_key names it, whatever the prompt",
    () => [
      name("responses", { prompt_cache_key: "s1", input: "a" }),
      name("responses", { prompt_cache_key: "s1", input: "b" }),
    ],
    true,
  ],
  [
    "prompt_cache_key first: before metadata.user_id and the session header",
    () => [
      name("messages", { prompt_cache_key: "s1", metadata: { user_id: "u" } }, {
        headers: new Headers([["x-claude-code-session-id", "h"]]),
      }),
      name("chat", { prompt_cache_key: "s1" }),
    ],
    true,
  ],
  [
    "a messages client's metadata.user_id names it, whatever the prompt",
    () => [
      name("messages", { metadata: { user_id: "user_1_session_9" }, messages: [] }),
      name("messages", { ...TURNS.messages[1], metadata: { user_id: "user_1_session_9" } }),
    ],
    true,
  ],
  [
    "metadata.user_id counts in messages only (in chat it is stored-completion metadata)",
    () => [
      name("chat", { metadata: { user_id: "u" }, messages: [] }),
      name("chat", { metadata: { user_id: "u" }, messages: [{ role: "user", content: "hi" }] }),
    ],
    false,
  ],
  [
    "Claude Code's session header names it as metadata.user_id would",
    () => [
      name("messages", { messages: [] }, {
        headers: new Headers([["x-claude-code-session-id", "sess"]]),
      }),
      name("messages", {
        metadata: { user_id: "sess" },
        messages: [{ role: "user", content: "x" }],
      }),
    ],
    true,
  ],
  [
    "metadata.user_id before the session header",
    () => [
      name("messages", { metadata: { user_id: "u" } }, {
        headers: new Headers([["x-claude-code-session-id", "h"]]),
      }),
      name("messages", { metadata: { user_id: "u" } }),
    ],
    true,
  ],
  [
    "previous_response_id names it when nothing else does",
    () => [
      name("responses", { previous_response_id: "resp_1", input: "a" }),
      name("responses", { previous_response_id: "resp_1", input: "b" }),
    ],
    true,
  ],
  [
    "a stored chain names every turn after the first alike (by its first response's id)",
    () => [
      name("responses", { previous_response_id: "resp_1", input: "b" }, { chain: "resp_1" }),
      name("responses", { previous_response_id: "resp_2", input: "c" }, { chain: "resp_1" }),
    ],
    true,
  ],
  [
    "a chain comes after prompt_cache_key",
    () => [
      name("responses", { prompt_cache_key: "s1", previous_response_id: "resp_2" }, {
        chain: "resp_1",
      }),
      name("responses", { prompt_cache_key: "s1" }),
    ],
    true,
  ],
  [
    "a client's name is scoped to its key",
    () => [
      name("responses", { prompt_cache_key: "s1" }),
      name("responses", { prompt_cache_key: "s1" }, { keyId: "key_b" }),
    ],
    false,
  ],
  [
    "an empty prompt_cache_key names nothing",
    () => [
      name("chat", { prompt_cache_key: "", messages: [{ role: "user", content: "a" }] }),
      name("chat", { prompt_cache_key: "", messages: [{ role: "user", content: "b" }] }),
    ],
    false,
  ],
];

for (const [title, names, same] of NAMED) {
  Deno.test(`conversation name: ${title}`, () => {
    const [a, b] = names();
    if (same) assert.equal(a, b);
    else assert.notEqual(a, b);
  });
}

Deno.test("conversation name: reveals nothing the client sent", () => {
  const named = name("messages", { metadata: { user_id: "alice@example.com" } });
  assert.ok(!named.includes("alice"));
  assert.equal(named.length, 22);
});
