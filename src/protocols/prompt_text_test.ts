import assert from "node:assert/strict";
import type { EntryProtocol } from "../config/schema.ts";
import { protocolOf } from "./index.ts";
import { loadTokenCounter } from "../tokens/token_count.ts";
import type { PromptText } from "./types.ts";

const CASES: {
  name: string;
  protocol: EntryProtocol;
  body: Record<string, unknown>;
  expected: PromptText;
}[] = [
  {
    name: "chat with system, parts and an assistant turn",
    protocol: "chat",
    body: {
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "first" },
        { role: "assistant", content: "ok" },
        {
          role: "user",
          content: [
            { type: "text", text: "look at" },
            { type: "image_url", image_url: { url: "data:..." } },
            { type: "text", text: "this" },
          ],
        },
      ],
    },
    expected: {
      texts: ["Be brief.", "first", "ok", "look at", "this"],
      lastUserText: "look at\nthis",
    },
  },
  {
    name: "responses with a string input",
    protocol: "responses",
    body: { instructions: "Answer in French.", input: "hello there" },
    expected: { texts: ["Answer in French.", "hello there"], lastUserText: "hello there" },
  },
  {
    name: "responses with items",
    protocol: "responses",
    body: {
      input: [
        { role: "developer", content: "dev" },
        { type: "message", role: "user", content: [{ type: "input_text", text: "q1" }] },
        { type: "function_call", name: "f", arguments: "{}", call_id: "c" },
        { type: "function_call_output", call_id: "c", output: "42" },
        { role: "user", content: "q2" },
      ],
    },
    expected: { texts: ["dev", "q1", "42", "q2"], lastUserText: "q2" },
  },
  {
    name: "messages with system blocks and a tool result",
    protocol: "messages",
    body: {
      system: [{ type: "text", text: "sys" }],
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] },
        {
          role: "user",
          content: [{
            type: "tool_result",
            tool_use_id: "t",
            content: [{ type: "text", text: "result" }],
          }],
        },
      ],
    },
    expected: { texts: ["sys", "hi", "result"], lastUserText: "result" },
  },
  {
    name: "messages without a user turn",
    protocol: "messages",
    body: { system: "s", messages: [{ role: "assistant", content: "a" }] },
    expected: { texts: ["s", "a"], lastUserText: "" },
  },
];

for (const c of CASES) {
  Deno.test(`promptText: ${c.name}`, () => {
    assert.deepEqual(protocolOf(c.protocol).promptText(c.body), c.expected);
  });
}

Deno.test("the token counter counts special-token markers as plain text", async () => {
  const count = await loadTokenCounter();
  assert.ok(count("say <|endoftext|> please") > 3);
  assert.equal(count(""), 0);
});
