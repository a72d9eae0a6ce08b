import assert from "node:assert/strict";
import type { IrTurn } from "../../translate/ir.ts";
import { decodeResponsesRequest } from "./request_decode.ts";
import { encodeResponsesRequest } from "./request_encode.ts";
import { requestContext } from "./test_support.ts";

const user = (text: string): IrTurn => ({ role: "user", parts: [{ type: "text", text }] });

const APPLY_PATCH_FORMAT = {
  type: "grammar",
  syntax: "lark",
  definition: 'start: "*** Begin Patch" LF hunk+ "*** End Patch"',
};
const PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch";

/** A turn of Codex CLI: everything it sends must decode, what has no effect dropped. */
const CODEX = {
  model: "gpt-5-codex",
  instructions: "You are Codex, a coding agent.",
  input: [
    { type: "message", role: "developer", content: [{ type: "input_text", text: "<perms>" }] },
    { type: "message", role: "user", content: [{ type: "input_text", text: "Add hello.txt" }] },
    { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA-state" },
    {
      type: "message",
      role: "assistant",
      phase: "commentary",
      content: [{ type: "output_text", text: "Creating the file." }],
    },
    { type: "custom_tool_call", id: "ctc_1", call_id: "call_p", name: "apply_patch", input: PATCH },
    { type: "custom_tool_call_output", call_id: "call_p", output: "Done!" },
    {
      type: "function_call",
      id: "fc_1",
      call_id: "call_x",
      name: "exec_command",
      arguments: '{"cmd":"ls"}',
    },
    { type: "function_call_output", call_id: "call_x", output: "hello.txt" },
    { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search" } },
  ],
  tools: [
    {
      type: "function",
      name: "exec_command",
      description: "Runs a command.",
      strict: false,
      parameters: { type: "object", properties: { cmd: { type: "string" } } },
    },
    {
      type: "custom",
      name: "apply_patch",
      description: "Edits files.",
      format: APPLY_PATCH_FORMAT,
    },
    { type: "namespace", name: "multi_agent_v1", description: "Agents.", tools: [] },
    { type: "web_search", external_web_access: false },
    { type: "local_shell" },
  ],
  tool_choice: "auto",
  parallel_tool_calls: false,
  reasoning: { effort: "medium", summary: "auto" },
  store: false,
  stream: true,
  include: ["reasoning.encrypted_content"],
  prompt_cache_key: "019a-session",
  text: { verbosity: "low" },
  client_metadata: { "x-codex-installation-id": "abc" },
  service_tier: "auto",
};

Deno.test("responses request decode: a Codex CLI turn decodes whole, what has no effect dropped", () => {
  assert.deepEqual(decodeResponsesRequest(CODEX), {
    model: "gpt-5-codex",
    stream: true,
    system: [
      { type: "text", text: "You are Codex, a coding agent." },
      { type: "text", text: "<perms>" },
    ],
    turns: [
      user("Add hello.txt"),
      {
        role: "assistant",
        parts: [
          {
            type: "reasoning",
            text: "",
            opaque: { kind: "openai_encrypted", value: "gAAAA-state" },
            itemId: "rs_1",
          },
          { type: "text", text: "Creating the file." },
          {
            type: "tool_call",
            id: "call_p",
            name: "apply_patch",
            arguments: JSON.stringify({ input: PATCH }),
            itemId: "ctc_1",
          },
        ],
      },
      {
        role: "user",
        parts: [{
          type: "tool_result",
          callId: "call_p",
          content: [{ type: "text", text: "Done!" }],
        }],
      },
      {
        role: "assistant",
        parts: [{
          type: "tool_call",
          id: "call_x",
          name: "exec_command",
          arguments: '{"cmd":"ls"}',
          itemId: "fc_1",
        }],
      },
      {
        role: "user",
        parts: [{
          type: "tool_result",
          callId: "call_x",
          content: [{ type: "text", text: "hello.txt" }],
        }],
      },
    ],
    tools: [
      {
        kind: "function",
        name: "exec_command",
        description: "Runs a command.",
        parameters: { type: "object", properties: { cmd: { type: "string" } } },
        strict: false,
      },
      {
        kind: "custom",
        name: "apply_patch",
        description: "Edits files.",
        format: APPLY_PATCH_FORMAT,
      },
      { kind: "web_search", options: { type: "web_search", external_web_access: false } },
    ],
    toolChoice: { type: "auto" },
    parallelToolCalls: false,
    reasoning: { enabled: true, effort: "medium", summary: "auto" },
    store: false,
    promptCacheKey: "019a-session",
    stop: [],
    dropped: [
      "client_metadata",
      "service_tier",
      "input[].phase",
      "input[8] (web_search_call)",
      "tools[2] (namespace)",
      "tools[4] (local_shell)",
      "text.verbosity",
    ],
  });
});

Deno.test("responses request encode: a Codex CLI turn goes to a responses upstream intact", () => {
  const context = requestContext();
  const body = encodeResponsesRequest(decodeResponsesRequest(CODEX), context);
  assert.deepEqual(body, {
    model: "upstream-model",
    instructions: "You are Codex, a coding agent.\n\n<perms>",
    input: [
      { type: "message", role: "user", content: [{ type: "input_text", text: "Add hello.txt" }] },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA-state" },
      { type: "message", role: "assistant", content: "Creating the file." },
      { type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: PATCH },
      { type: "custom_tool_call_output", call_id: "call_p", output: "Done!" },
      { type: "function_call", call_id: "call_x", name: "exec_command", arguments: '{"cmd":"ls"}' },
      { type: "function_call_output", call_id: "call_x", output: "hello.txt" },
    ],
    tools: [
      {
        type: "function",
        name: "exec_command",
        description: "Runs a command.",
        parameters: { type: "object", properties: { cmd: { type: "string" } } },
        strict: false,
      },
      {
        type: "custom",
        name: "apply_patch",
        description: "Edits files.",
        format: APPLY_PATCH_FORMAT,
      },
      { type: "web_search", external_web_access: false },
    ],
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "medium", summary: "auto" },
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "019a-session",
    store: false,
    stream: true,
  });
  assert.deepEqual(context.drops, []);
});
