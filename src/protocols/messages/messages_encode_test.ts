import assert from "node:assert/strict";
import type { IrRequest } from "../../translate/ir.ts";
import { toolId } from "./content.ts";
import { encodeMessagesRequest } from "./request_encode.ts";
import { irRequest, requestContext } from "./test_support.ts";

const call = { type: "tool_call" as const, id: "call.1", name: "f", arguments: "not json" };
const result = {
  type: "tool_result" as const,
  callId: "call.1",
  content: [{ type: "text" as const, text: "ok" }],
};
const signed = {
  type: "reasoning" as const,
  text: "t",
  opaque: { kind: "anthropic_signature" as const, value: "SIG" },
};

/** One mapping per row: IR system and turns, the upstream body they must produce, and drops. */
const ROWS: [string, Partial<IrRequest>, Record<string, unknown>, string[]?][] = [
  [
    "system text and system turns join one string; max_tokens defaults",
    {
      system: [{ type: "text", text: "a" }],
      turns: [
        { role: "user", parts: [{ type: "text", text: "hi" }] },
        { role: "system", parts: [{ type: "text", text: "c" }] },
      ],
    },
    {
      system: "a\n\nc",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      max_tokens: 4096,
    },
  ],
  [
    "system as blocks when any carries cache_control",
    {
      system: [{ type: "text", text: "a", cacheControl: { type: "ephemeral" } }, {
        type: "text",
        text: "",
      }],
      turns: [{ role: "system", parts: [{ type: "text", text: "c" }] }],
    },
    {
      system: [
        { type: "text", text: "a", cache_control: { type: "ephemeral" } },
        { type: "text", text: "c" },
      ],
      messages: [],
      max_tokens: 4096,
    },
  ],
  [
    "tool results lead the user content; same roles merge; ids made safe alike; bad JSON is {}",
    {
      maxOutputTokens: 50,
      turns: [
        { role: "user", parts: [{ type: "text", text: "go" }] },
        { role: "assistant", parts: [{ type: "text", text: "calling" }] },
        { role: "assistant", parts: [call] },
        { role: "user", parts: [{ type: "text", text: "and?" }, result] },
        {
          role: "user",
          parts: [{ type: "tool_result", callId: "x", content: [], isError: true }],
        },
      ],
    },
    {
      messages: [
        { role: "user", content: [{ type: "text", text: "go" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "calling" },
            { type: "tool_use", id: toolId("call.1"), name: "f", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: toolId("call.1"), content: "ok" },
            { type: "tool_result", tool_use_id: "x", is_error: true },
            { type: "text", text: "and?" },
          ],
        },
      ],
      max_tokens: 50,
    },
  ],
  [
    "images and documents; what messages cannot point at is dropped",
    {
      turns: [{
        role: "user",
        parts: [
          { type: "image", source: { kind: "base64", mediaType: "image/png", data: "AA==" } },
          { type: "image", source: { kind: "file", fileId: "file-1" } },
          {
            type: "document",
            source: { kind: "base64", mediaType: "text/plain", data: btoa("plain") },
            filename: "a.txt",
          },
          {
            type: "tool_result",
            callId: "t",
            content: [{ type: "text", text: "see" }, {
              type: "image",
              source: { kind: "url", url: "https://i" },
            }],
          },
        ],
      }],
    },
    {
      messages: [{
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "t",
            content: [{ type: "text", text: "see" }, {
              type: "image",
              source: { type: "url", url: "https://i" },
            }],
          },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } },
          {
            type: "document",
            source: { type: "text", media_type: "text/plain", data: "plain" },
            title: "a.txt",
          },
        ],
      }],
      max_tokens: 4096,
    },
    ["image file source"],
  ],
  [
    "reasoning goes back only as Anthropic's own thinking",
    {
      turns: [
        { role: "user", parts: [{ type: "text", text: "q" }] },
        {
          role: "assistant",
          parts: [
            signed,
            { type: "reasoning", text: "", opaque: { kind: "anthropic_redacted", value: "R" } },
            { type: "reasoning", text: "x", opaque: { kind: "openai_encrypted", value: "E" } },
            { type: "reasoning", text: "plain" },
            { type: "refusal", text: "no" },
          ],
        },
      ],
    },
    {
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "t", signature: "SIG" },
            { type: "redacted_thinking", data: "R" },
            { type: "text", text: "no" },
          ],
        },
      ],
      max_tokens: 4096,
    },
    ["reasoning"],
  ],
];

for (const [label, fields, expected, drops = []] of ROWS) {
  Deno.test(`messages request encode: ${label}`, () => {
    const context = requestContext();
    const body = encodeMessagesRequest(irRequest(fields), context);
    assert.deepEqual(body, { model: "upstream-model", ...expected });
    assert.deepEqual(context.drops, drops);
  });
}

Deno.test("messages request encode: foreign tool ids map alike, stay apart, and are valid", () => {
  const ids = ["call.1", "call:1", "call 1", "", "functions.get_weather:0"];
  const mapped = ids.map(toolId);
  for (const id of mapped) assert.match(id, /^[a-zA-Z0-9_-]+$/);
  assert.equal(new Set(mapped).size, ids.length);
  assert.deepEqual(ids.map(toolId), mapped);
  assert.equal(toolId("toolu_01ABC-x"), "toolu_01ABC-x");
});
