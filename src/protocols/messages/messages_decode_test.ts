import assert from "node:assert/strict";
import { GatewayError } from "../../errors.ts";
import type { IrRequest } from "../../translate/ir.ts";
import { decodeMessagesRequest } from "./request_decode.ts";

const user = (text: string) => ({
  role: "user" as const,
  parts: [{ type: "text" as const, text }],
});

/** One mapping per row: client `system` and `messages` (and the like) and the IR they give. */
const ROWS: [string, Record<string, unknown>, Partial<IrRequest>][] = [
  [
    "system blocks keep cache_control; a system message later is a system turn",
    {
      system: [
        { type: "text", text: "a", cache_control: { type: "ephemeral" } },
        { type: "text", text: "b" },
      ],
      messages: [
        { role: "user", content: "hi" },
        { role: "system", content: [{ type: "text", text: "c" }] },
      ],
    },
    {
      system: [
        { type: "text", text: "a", cacheControl: { type: "ephemeral" } },
        { type: "text", text: "b" },
      ],
      turns: [user("hi"), { role: "system", parts: [{ type: "text", text: "c" }] }],
    },
  ],
  [
    "documents: base64 PDF, plain text, URL, and a content source with an image",
    {
      messages: [{
        role: "user",
        content: [
          {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: "QQ==" },
            title: "T",
            cache_control: { type: "ephemeral" },
          },
          { type: "document", source: { type: "text", media_type: "text/plain", data: "plain" } },
          { type: "document", source: { type: "url", url: "https://d/x.pdf" } },
          {
            type: "document",
            source: {
              type: "content",
              content: [{ type: "text", text: "one" }, {
                type: "image",
                source: { type: "url", url: "https://i" },
              }],
            },
          },
        ],
      }],
    },
    {
      turns: [{
        role: "user",
        parts: [
          {
            type: "document",
            source: { kind: "base64", mediaType: "application/pdf", data: "QQ==" },
            title: "T",
            cacheControl: { type: "ephemeral" },
          },
          { type: "document", source: { kind: "text", text: "plain" } },
          { type: "document", source: { kind: "url", url: "https://d/x.pdf" } },
          { type: "document", source: { kind: "text", text: "one" } },
          { type: "image", source: { kind: "url", url: "https://i" } },
        ],
      }],
    },
  ],
  [
    "tool results: blocks with an image, is_error, cache_control; a search result is text",
    {
      messages: [{
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: "toolu_1",
          is_error: true,
          cache_control: { type: "ephemeral" },
          content: [
            { type: "text", text: "failed" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } },
            { type: "tool_reference", tool_name: "x" },
          ],
        }, {
          type: "search_result",
          source: "https://s",
          title: "S",
          content: [{ type: "text", text: "found" }],
        }],
      }],
    },
    {
      turns: [{
        role: "user",
        parts: [{
          type: "tool_result",
          callId: "toolu_1",
          isError: true,
          cacheControl: { type: "ephemeral" },
          content: [
            { type: "text", text: "failed" },
            { type: "image", source: { kind: "base64", mediaType: "image/png", data: "AA==" } },
          ],
        }, { type: "text", text: "S\nhttps://s\n\nfound" }],
      }],
      dropped: ["messages[0].content[0].content[2] (tool_reference)"],
    },
  ],
  [
    "assistant history: redacted and wrapped thinking, server tools dropped, compaction as text",
    {
      messages: [{
        role: "assistant",
        content: [
          {
            type: "compaction",
            content: "Earlier: the user asked about X.",
            encrypted_content: "e",
          },
          { type: "redacted_thinking", data: "RED" },
          { type: "thinking", thinking: "t", signature: "tollgate:openai_encrypted:gAAA" },
          { type: "thinking", thinking: "unsigned", signature: "" },
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
          { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
          { type: "text", text: "found it" },
          { type: "tool_use", id: "toolu_2", name: "f", input: { a: [1] } },
        ],
      }],
    },
    {
      turns: [{
        role: "assistant",
        parts: [
          { type: "text", text: "Earlier: the user asked about X." },
          { type: "reasoning", text: "", opaque: { kind: "anthropic_redacted", value: "RED" } },
          { type: "reasoning", text: "t", opaque: { kind: "openai_encrypted", value: "gAAA" } },
          { type: "reasoning", text: "unsigned" },
          { type: "text", text: "found it" },
          { type: "tool_call", id: "toolu_2", name: "f", arguments: '{"a":[1]}' },
        ],
      }],
      dropped: [
        "messages[0].content[0] (compaction)",
        "messages[0].content[4] (server_tool_use)",
        "messages[0].content[5] (web_search_tool_result)",
      ],
    },
  ],
];

for (const [label, fields, expected] of ROWS) {
  Deno.test(`messages request decode: ${label}`, () => {
    const body = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] };
    const decoded = decodeMessagesRequest({ ...body, ...fields });
    const base = decodeMessagesRequest(body);
    const changed = Object.fromEntries(
      Object.entries(decoded).filter(([key, value]) =>
        JSON.stringify(value) !== JSON.stringify(base[key as keyof IrRequest])
      ),
    );
    assert.deepEqual(changed, expected);
  });
}

/** Client content the IR cannot carry: refused, naming the path. */
const REFUSED: [string, unknown[], string][] = [
  [
    "an unknown user block",
    [{ role: "user", content: [{ type: "video" }] }],
    "messages[0].content[0]",
  ],
  [
    "an unknown assistant block",
    [{ role: "user", content: "x" }, { role: "assistant", content: [{ type: "hologram" }] }],
    "messages[1].content[0]",
  ],
  ["an unknown role", [{ role: "tool", content: "x" }], "messages[0].role"],
  [
    "an image source of unknown type",
    [{ role: "user", content: [{ type: "image", source: { type: "s3" } }] }],
    "messages[0].content[0].source",
  ],
  [
    "a non-text system message",
    [{ role: "system", content: [{ type: "image", source: { type: "url", url: "u" } }] }],
    "messages[0].content[0]",
  ],
  [
    "an unknown block in a tool result",
    [{
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "x" }] }],
    }],
    "messages[0].content[0].content[0]",
  ],
];

for (const [label, messages, param] of REFUSED) {
  Deno.test(`messages request decode: refuses ${label}`, () => {
    assert.throws(
      () => decodeMessagesRequest({ model: "m", max_tokens: 1, messages }),
      (error: unknown) =>
        error instanceof GatewayError && error.status === 400 &&
        error.code === "convert_request_failed" && error.param === param,
    );
  });
}
