/**
 * The requests Codex CLI and Claude Code really send (captured from the pinned versions
 * in tests/agents_support.ts) translate to every other protocol: nothing refused, the
 * tools kept, the system prompt in the target's own place, what cannot go dropped.
 */
import assert from "node:assert/strict";
import { protocolOf } from "../src/protocols/index.ts";

const fixture = (name: string) =>
  JSON.parse(Deno.readTextFileSync(new URL(`./fixtures/agents/${name}`, import.meta.url)));

function encodeFor(target: "chat" | "responses" | "messages", request: ReturnType<typeof decode>) {
  const drops: string[] = [];
  const body = protocolOf(target).encodeRequest(request, {
    model: "upstream-model",
    defaultMaxOutputTokens: 4096,
    drop: (what) => drops.push(what),
  });
  return { body, drops };
}

function decode(protocol: "responses" | "messages", name: string) {
  return protocolOf(protocol).decodeRequest(fixture(name));
}

Deno.test("agent requests: Codex CLI's request reaches chat and messages upstreams", () => {
  const request = decode("responses", "codex_request.json");
  assert.ok(request.system.length > 0, "Codex's developer message is the system prompt");
  assert.ok(request.tools.some((tool) => "name" in tool && tool.name === "exec_command"));
  assert.ok(request.dropped.some((field) => field.includes("namespace")));

  const chat = encodeFor("chat", request).body;
  const messages = chat.messages as { role: string }[];
  assert.equal(messages[0]?.role, "system");
  const chatTools = chat.tools as { function: { name: string; strict?: boolean } }[];
  assert.ok(chatTools.some((tool) => tool.function.name === "exec_command"));

  const anthropic = encodeFor("messages", request).body;
  // The system prompt in one text block, marked for Anthropic's prompt cache.
  const system = anthropic.system as { type: string; cache_control?: unknown }[];
  assert.deepEqual(system.map((block) => [block.type, block.cache_control]), [
    ["text", { type: "ephemeral" }],
  ]);
  const thinking = anthropic.thinking as { budget_tokens: number };
  assert.ok((anthropic.max_tokens as number) > thinking.budget_tokens, "room beside the budget");
  const anthropicTools = anthropic.tools as { name: string }[];
  assert.ok(anthropicTools.some((tool) => tool.name === "exec_command"));
  assert.equal((anthropic.messages as { role: string }[])[0]?.role, "user");
});

Deno.test("agent requests: Claude Code's request reaches chat and responses upstreams", () => {
  const request = decode("messages", "claude_code_request.json");
  assert.equal(request.reasoning?.enabled, true, "adaptive thinking is reasoning on");
  assert.ok(request.tools.some((tool) => "name" in tool && tool.name === "Bash"));

  const { body: chat } = encodeFor("chat", request);
  const messages = chat.messages as { role: string }[];
  assert.equal(messages[0]?.role, "system");
  assert.equal(chat.max_completion_tokens, 32000);

  const { body: responses } = encodeFor("responses", request);
  assert.equal(typeof responses.instructions, "string");
  assert.equal(responses.store, false);
  const tools = responses.tools as { name: string; strict: boolean }[];
  const bash = tools.find((tool) => tool.name === "Bash");
  assert.equal(bash?.strict, false, "Claude Code's tools are not strict");
});
