import assert from "node:assert/strict";
import { decodeChatRequest } from "../chat/request_decode.ts";
import { addCacheBreakpoints, MAX_BREAKPOINTS } from "./cache_breakpoints.ts";
import { messagesCodec } from "./codec.ts";
import { requestContext } from "./test_support.ts";

type Block = Record<string, unknown>;

const CACHE = { type: "ephemeral" };
const HOUR = { type: "ephemeral", ttl: "1h" };
const text = (value: string, marker?: Block): Block => ({
  type: "text",
  text: value,
  ...(marker ? { cache_control: marker } : {}),
});
const IMAGE = { type: "image", source: { type: "url", url: "https://x.test/a.png" } };
const user = (...content: Block[]) => ({ role: "user", content });
const assistant = (...content: Block[]) => ({ role: "assistant", content });
const tool = (name: string, marker?: Block): Block => ({
  name,
  input_schema: { type: "object" },
  ...(marker ? { cache_control: marker } : {}),
});

/** A body with Anthropic's four breakpoints already, one nested in a tool result. */
const FULL = {
  tools: [tool("f", CACHE), tool("g", CACHE)],
  system: "S",
  messages: [
    user({ type: "tool_result", tool_use_id: "t", content: [text("r", CACHE)] }),
    assistant(text("a", CACHE)),
    user(text("new")),
  ],
};

/**
 * One placement per row: the body the encoder made, and the body Anthropic is sent
 * (Anthropic "Prompt caching": at most 4 breakpoints; tools, system, messages; no empty
 * text, no thinking; 1-hour entries before 5-minute ones).
 */
const ROWS: [string, Block, Block][] = [
  [
    "a string system prompt becomes a marked block; the last user text is marked",
    { system: "Be brief.", messages: [user(text("hi"))] },
    { system: [text("Be brief.", CACHE)], messages: [user(text("hi", CACHE))] },
  ],
  [
    "no system prompt: only the user turn",
    { messages: [user(text("hi"))] },
    { messages: [user(text("hi", CACHE))] },
  ],
  [
    "an empty system prompt gets no marker",
    { system: "", messages: [user(text("hi"))] },
    { system: "", messages: [user(text("hi", CACHE))] },
  ],
  [
    "system blocks: the last non-empty text block",
    { system: [text("a"), text("b"), text("")], messages: [user(text("hi"))] },
    { system: [text("a"), text("b", CACHE), text("")], messages: [user(text("hi", CACHE))] },
  ],
  [
    "the last user message, not a later assistant prefill; never thinking or an assistant turn",
    {
      messages: [
        user(text("q1")),
        assistant({ type: "thinking", thinking: "t", signature: "s" }, text("a1")),
        user(text("q2"), text("")),
        assistant(text("The answer is")),
      ],
    },
    {
      messages: [
        user(text("q1")),
        assistant({ type: "thinking", thinking: "t", signature: "s" }, text("a1")),
        user(text("q2", CACHE), text("")),
        assistant(text("The answer is")),
      ],
    },
  ],
  [
    "a user turn ending in a tool result marks the tool result",
    {
      messages: [
        assistant({ type: "tool_use", id: "t1", name: "f", input: {} }),
        user({ type: "tool_result", tool_use_id: "t1", content: "ok" }),
      ],
    },
    {
      messages: [
        assistant({ type: "tool_use", id: "t1", name: "f", input: {} }),
        user({ type: "tool_result", tool_use_id: "t1", content: "ok", cache_control: CACHE }),
      ],
    },
  ],
  [
    "a user turn ending in an image marks the image",
    { messages: [user(text("What is this?"), IMAGE)] },
    { messages: [user(text("What is this?"), { ...IMAGE, cache_control: CACHE })] },
  ],
  [
    "a user turn with nothing markable gets nothing; the system still does",
    { system: "S", messages: [user(text(""))] },
    { system: [text("S", CACHE)], messages: [user(text(""))] },
  ],
  [
    "a block the client marked stays as it is (its TTL too); the system gets the free slot",
    { system: "S", messages: [user(text("hi", { type: "ephemeral", ttl: "5m" }))] },
    {
      system: [text("S", CACHE)],
      messages: [user(text("hi", { type: "ephemeral", ttl: "5m" }))],
    },
  ],
  [
    "three client markers leave one slot: the user turn takes it",
    {
      tools: [tool("f", CACHE)],
      system: [text("S", CACHE)],
      messages: [user(text("old", CACHE)), assistant(text("a")), user(text("new"))],
    },
    {
      tools: [tool("f", CACHE)],
      system: [text("S", CACHE)],
      messages: [user(text("old", CACHE)), assistant(text("a")), user(text("new", CACHE))],
    },
  ],
  ["four client markers (nested tool result content counted): nothing is added", FULL, FULL],
  [
    "a client's 1-hour marker in the messages: no 5-minute marker before it (the system)",
    { system: "S", messages: [user(text("doc", HOUR)), assistant(text("a")), user(text("q"))] },
    {
      system: "S",
      messages: [user(text("doc", HOUR)), assistant(text("a")), user(text("q", CACHE))],
    },
  ],
  [
    "a 1-hour marker on the tools allows both",
    { tools: [tool("f", HOUR)], system: "S", messages: [user(text("q"))] },
    {
      tools: [tool("f", HOUR)],
      system: [text("S", CACHE)],
      messages: [user(text("q", CACHE))],
    },
  ],
];

for (const [title, body, expected] of ROWS) {
  Deno.test(`cache breakpoints: ${title}`, () => {
    const sent = addCacheBreakpoints(structuredClone(body));
    assert.deepEqual(sent, expected);
    assert.ok(countMarkers(sent) <= MAX_BREAKPOINTS);
  });
}

Deno.test("cache breakpoints: a chat request translated to messages carries them", () => {
  const client = {
    model: "m",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Plan a trip." },
      { role: "assistant", content: "Where to?" },
      { role: "user", content: "Lisbon." },
    ],
  };
  const body = messagesCodec.encodeRequest(decodeChatRequest(client), requestContext());
  assert.deepEqual(body.system, [text("Be brief.", CACHE)]);
  assert.deepEqual(body.messages, [
    user(text("Plan a trip.")),
    assistant(text("Where to?")),
    user(text("Lisbon.", CACHE)),
  ]);
});

function countMarkers(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum, item) => sum + countMarkers(item), 0);
  if (typeof value !== "object" || value === null) return 0;
  const record = value as Block;
  const own = record.cache_control ? 1 : 0;
  return own + Object.entries(record).reduce(
    (sum, [key, inner]) => key === "cache_control" ? sum : sum + countMarkers(inner),
    0,
  );
}
