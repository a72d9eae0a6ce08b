import assert from "node:assert/strict";
import { GatewayError } from "../../errors.ts";
import type { IrTurn } from "../../translate/ir.ts";
import { wrapOpaque } from "../../translate/opaque.ts";
import { decodeResponsesRequest } from "./request_decode.ts";

const decode = (input: unknown, fields: Record<string, unknown> = {}) =>
  decodeResponsesRequest({ model: "m", input, ...fields });
const user = (text: string): IrTurn => ({ role: "user", parts: [{ type: "text", text }] });

Deno.test("responses input decode: leading system and developer messages join instructions", () => {
  const request = decode([
    { role: "system", content: "A" },
    { role: "developer", content: [{ type: "input_text", text: "B" }] },
    { role: "user", content: "hi" },
    { role: "developer", content: "later" },
  ], { instructions: "I" });
  assert.deepEqual(request.system.map((part) => part.text), ["I", "A", "B"]);
  assert.deepEqual(request.turns, [
    user("hi"),
    { role: "system", parts: [{ type: "text", text: "later" }] },
  ]);
});

Deno.test("responses input decode: user content parts (text, images, files of every source)", () => {
  const request = decode([{
    role: "user",
    content: [
      { type: "input_text", text: "look" },
      { type: "input_image", file_id: "file-img", detail: "high" },
      { type: "input_file", file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" },
      { type: "input_file", file_data: "aGVsbG8=", filename: "notes.txt" },
      { type: "input_file", file_url: "https://example.com/b.pdf" },
      { type: "input_file", file_id: "file-doc" },
    ],
  }]);
  assert.deepEqual(request.turns[0]!.parts, [
    { type: "text", text: "look" },
    { type: "image", source: { kind: "file", fileId: "file-img" }, detail: "high" },
    {
      type: "document",
      source: { kind: "base64", mediaType: "application/pdf", data: "JVBERi0=" },
      filename: "a.pdf",
    },
    // Bare base64: the file name tells the media type.
    {
      type: "document",
      source: { kind: "base64", mediaType: "text/plain", data: "aGVsbG8=" },
      filename: "notes.txt",
    },
    { type: "document", source: { kind: "url", url: "https://example.com/b.pdf" } },
    { type: "document", source: { kind: "file", fileId: "file-doc" } },
  ]);
});

Deno.test("responses input decode: assistant history (string, output_text, refusal) and outputs", () => {
  const request = decode([
    { role: "user", content: "q" },
    { role: "assistant", content: "plain" },
    {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "a" }, { type: "refusal", refusal: "no" }],
    },
    { type: "function_call", call_id: "c1", name: "f", arguments: { x: 1 } },
    {
      type: "function_call_output",
      call_id: "c1",
      output: [
        { type: "input_text", text: "shot:" },
        { type: "input_image", image_url: "https://example.com/s.png" },
      ],
    },
    { role: "user", content: "next" },
  ]);
  assert.deepEqual(request.turns, [
    user("q"),
    {
      role: "assistant",
      parts: [
        { type: "text", text: "plain" },
        { type: "text", text: "a" },
        { type: "refusal", text: "no" },
        // Some clients send the arguments parsed: they travel as JSON text.
        { type: "tool_call", id: "c1", name: "f", arguments: '{"x":1}' },
      ],
    },
    {
      role: "user",
      parts: [
        {
          type: "tool_result",
          callId: "c1",
          content: [
            { type: "text", text: "shot:" },
            { type: "image", source: { kind: "url", url: "https://example.com/s.png" } },
          ],
        },
        { type: "text", text: "next" },
      ],
    },
  ]);
});

Deno.test("responses input decode: another provider's state comes back unwrapped", () => {
  const signature = { kind: "anthropic_signature" as const, value: "EqQBsig" };
  const request = decode([{
    type: "reasoning",
    id: "rs_9",
    summary: [{ type: "summary_text", text: "one" }, { type: "summary_text", text: "two" }],
    encrypted_content: wrapOpaque(signature, "openai_encrypted"),
  }]);
  assert.deepEqual(request.turns, [{
    role: "assistant",
    parts: [{ type: "reasoning", text: "one\n\ntwo", opaque: signature, itemId: "rs_9" }],
  }]);
});

Deno.test("responses input decode: raw reasoning text stands in for a missing summary", () => {
  const request = decode([{
    type: "reasoning",
    id: "rs_raw",
    summary: [],
    content: [{ type: "reasoning_text", text: "thinking" }],
  }]);
  assert.deepEqual(request.turns[0]!.parts, [{
    type: "reasoning",
    text: "thinking",
    itemId: "rs_raw",
  }]);
});

Deno.test("responses input decode: items of hosted tools are dropped by name", () => {
  const request = decode([
    { role: "user", content: "q" },
    { type: "local_shell_call", id: "lsh_1", call_id: "c", action: {}, status: "completed" },
    { type: "compaction", id: "cmp_1", encrypted_content: "x" },
  ]);
  assert.deepEqual(request.turns, [user("q")]);
  assert.deepEqual(request.dropped, ["input[1] (local_shell_call)", "input[2] (compaction)"]);
});

/** Inputs the IR cannot carry, and the field each refusal names. */
const REFUSED: [string, unknown, string][] = [
  [
    "an unknown content part",
    [{ role: "user", content: [{ type: "input_text", text: "a" }, { type: "input_video" }] }],
    "input[0].content[1]",
  ],
  ["audio input", [{ role: "user", content: [{ type: "input_audio" }] }], "input[0].content[0]"],
  [
    "an image without a source",
    [{ role: "user", content: [{ type: "input_image" }] }],
    "input[0].content[0]",
  ],
  [
    "an image in a system message",
    [{ role: "system", content: [{ type: "input_image", image_url: "https://x/y.png" }] }],
    "input[0].content[0]",
  ],
  ["an unknown item type", [{ type: "telepathy" }], "input[0].type"],
  ["an item reference", [{ type: "item_reference", id: "msg_1" }], "input[0]"],
  ["an unknown role", [{ role: "narrator", content: "x" }], "input[0].role"],
  ["an item that is not an object", ["hello"], "input[0]"],
  [
    "an unknown assistant part",
    [{ role: "assistant", content: [{ type: "output_audio" }] }],
    "input[0].content[0]",
  ],
];

for (const [what, input, param] of REFUSED) {
  Deno.test(`responses input decode: ${what} is refused naming ${param}`, () => {
    assert.throws(() => decode(input), (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.status, 400);
      assert.equal(error.code, "convert_request_failed");
      assert.equal(error.param, param);
      return true;
    });
  });
}
