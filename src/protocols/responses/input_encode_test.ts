import assert from "node:assert/strict";
import type { IrTool, IrTurn } from "../../translate/ir.ts";
import { encodeResponsesRequest } from "./request_encode.ts";
import { irRequest, requestContext } from "./test_support.ts";

const PATCH_TOOL: IrTool = { kind: "custom", name: "apply_patch" };
const encodeTurns = (turns: IrTurn[], tools: IrTool[] = []) => {
  const context = requestContext();
  const body = encodeResponsesRequest(irRequest({ turns, tools }), context);
  return { input: body.input, drops: context.drops };
};

Deno.test("responses input encode: a tool loop of another protocol's client, Claude Code style", () => {
  const { input, drops } = encodeTurns([
    {
      role: "user",
      parts: [{ type: "text", text: "fix it", cacheControl: { type: "ephemeral" } }],
    },
    {
      role: "assistant",
      parts: [
        {
          type: "reasoning",
          text: "look first",
          opaque: { kind: "anthropic_signature", value: "EqQBsig" },
        },
        { type: "text", text: "Looking." },
        { type: "tool_call", id: "toolu_1", name: "Read", arguments: '{"path":"a.png"}' },
        { type: "tool_call", id: "toolu_2", name: "apply_patch", arguments: '{"input":"*** P"}' },
      ],
    },
    {
      role: "user",
      parts: [
        { type: "text", text: "both done" },
        {
          type: "tool_result",
          callId: "toolu_1",
          content: [
            { type: "text", text: "an image:" },
            { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBO" } },
          ],
        },
        {
          type: "tool_result",
          callId: "toolu_2",
          content: [{ type: "text", text: "failed" }],
          isError: true,
        },
      ],
    },
  ], [PATCH_TOOL]);
  assert.deepEqual(input, [
    { type: "message", role: "user", content: [{ type: "input_text", text: "fix it" }] },
    { type: "message", role: "assistant", content: "Looking." },
    { type: "function_call", call_id: "toolu_1", name: "Read", arguments: '{"path":"a.png"}' },
    { type: "custom_tool_call", call_id: "toolu_2", name: "apply_patch", input: "*** P" },
    // Outputs first, each an item; an image makes the output a content list.
    {
      type: "function_call_output",
      call_id: "toolu_1",
      output: [
        { type: "input_text", text: "an image:" },
        { type: "input_image", image_url: "data:image/png;base64,iVBO", detail: "auto" },
      ],
    },
    { type: "custom_tool_call_output", call_id: "toolu_2", output: "failed" },
    { type: "message", role: "user", content: [{ type: "input_text", text: "both done" }] },
  ]);
  assert.deepEqual(drops, ["cache_control", "reasoning", "tool_result is_error"]);
});

Deno.test("responses input encode: OpenAI's own reasoning goes back with its item id", () => {
  const { input, drops } = encodeTurns([
    { role: "user", parts: [{ type: "text", text: "q" }] },
    {
      role: "assistant",
      parts: [
        {
          type: "reasoning",
          text: "sum",
          opaque: { kind: "openai_encrypted", value: "gAAAA1" },
          itemId: "rs_1",
        },
        { type: "reasoning", text: "", opaque: { kind: "openai_encrypted", value: "gAAAA2" } },
        { type: "reasoning", text: "no state" },
        { type: "refusal", text: "I can't." },
      ],
    },
  ]);
  assert.deepEqual(input, [
    { type: "message", role: "user", content: [{ type: "input_text", text: "q" }] },
    {
      type: "reasoning",
      id: "rs_1",
      summary: [{ type: "summary_text", text: "sum" }],
      encrypted_content: "gAAAA1",
    },
    { type: "reasoning", summary: [], encrypted_content: "gAAAA2" },
    // A refusal is what the model said: assistant text.
    { type: "message", role: "assistant", content: "I can't." },
  ]);
  assert.deepEqual(drops, ["reasoning"]);
});

Deno.test("responses input encode: system turns, documents and images of every source", () => {
  const { input, drops } = encodeTurns([
    { role: "user", parts: [{ type: "text", text: "a" }] },
    {
      role: "system",
      parts: [{ type: "text", text: "be brief" }, { type: "text", text: "really" }],
    },
    {
      role: "user",
      parts: [
        {
          type: "document",
          source: { kind: "base64", mediaType: "application/pdf", data: "JVBE" },
          title: "Report",
        },
        { type: "document", source: { kind: "base64", mediaType: "text/plain", data: "aGk=" } },
        { type: "document", source: { kind: "text", text: "plain words" }, title: "Notes" },
        { type: "document", source: { kind: "url", url: "https://x/y.pdf" }, filename: "y.pdf" },
        { type: "document", source: { kind: "file", fileId: "file-1" } },
        { type: "image", source: { kind: "url", url: "https://x/i.png" }, detail: "low" },
        { type: "image", source: { kind: "file", fileId: "file-2" } },
        { type: "image", source: { kind: "text", text: "not an image" } },
      ],
    },
  ]);
  assert.deepEqual(input, [
    { type: "message", role: "user", content: [{ type: "input_text", text: "a" }] },
    { type: "message", role: "system", content: "be brief\n\nreally" },
    {
      type: "message",
      role: "user",
      content: [
        {
          type: "input_file",
          filename: "Report.pdf",
          file_data: "data:application/pdf;base64,JVBE",
        },
        { type: "input_file", filename: "document.txt", file_data: "data:text/plain;base64,aGk=" },
        { type: "input_text", text: "Notes\n\nplain words" },
        { type: "input_file", file_url: "https://x/y.pdf", filename: "y.pdf" },
        { type: "input_file", file_id: "file-1" },
        { type: "input_image", image_url: "https://x/i.png", detail: "low" },
        { type: "input_image", file_id: "file-2", detail: "auto" },
      ],
    },
  ]);
  assert.deepEqual(drops, ["image text source"]);
});

Deno.test("responses input encode: a result whose call is not in the history is a function output", () => {
  const { input } = encodeTurns([
    { role: "user", parts: [{ type: "tool_result", callId: "call_9", content: [] }] },
  ], [PATCH_TOOL]);
  assert.deepEqual(input, [{ type: "function_call_output", call_id: "call_9", output: "" }]);
});
