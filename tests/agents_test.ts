/**
 * The coding agents on channels of another protocol: Codex CLI (responses only) on chat
 * completions and messages upstreams, Claude Code (messages only) on chat completions and
 * responses upstreams. Each completes a one-shot prompt that needs one tool call: the fake
 * upstream asks for a shell command whose output only a real run of it can know, then
 * answers with what the tool returned.
 */
import assert from "node:assert/strict";
import type { FakeReply } from "./fakes/reply.ts";
import { channel } from "./harness.ts";
import { type AgentRun, installAgents, runClaudeCode, runCodex } from "./agents_support.ts";
import { gatewayWithKey, type Scope, withScope } from "./support.ts";

// The shell computes 42: the marker appears in a request only once the tool really ran.
const COMMAND = "echo tollgate-$((40+2))";
const MARKER = "tollgate-42";
const FINAL = `The command printed ${MARKER}.`;

/** Tool names in a request of any protocol (chat nests them under `function`). */
function toolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return tools.map((tool) => {
    const entry = tool as { name?: unknown; function?: { name?: unknown } };
    return String(entry.function?.name ?? entry.name ?? "");
  });
}

/** The upstream's side of the conversation: call `tool` once, then report its output. */
function agentScript(tool: string, args: Record<string, unknown>) {
  return (body: Record<string, unknown>): FakeReply => {
    if (JSON.stringify(body).includes(MARKER)) return { text: FINAL };
    // Side requests (titles, summaries) carry no tools: answer them plainly.
    if (!toolNames(body).includes(tool)) return { text: "ok" };
    return {
      text: "",
      toolCalls: [{ id: "call_tollgate1", name: tool, arguments: JSON.stringify(args) }],
    };
  };
}

async function agentGateway(s: Scope, upstream: string, respond: ReturnType<typeof agentScript>) {
  const fake = await s.fake({ name: "up", behaviour: { respond } });
  const started = await gatewayWithKey(
    s,
    channel({ name: "up", protocol: upstream, models: ["agent-model"], baseUrl: fake.url }),
    `[models.agent-model]\nmax_output_tokens = 4096\n`,
  );
  const work = await Deno.makeTempDir({ prefix: "tollgate-agent-" });
  return { fake, work, ...started };
}

async function assertCompleted(
  run: AgentRun,
  fake: { requests: { body: unknown }[] },
  ledger: () => Promise<{ status: string }[]>,
) {
  const output = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  assert.equal(run.code, 0, output);
  assert.ok(run.stdout.includes(FINAL), output);
  const resultSent = fake.requests.some((request) => JSON.stringify(request.body).includes(MARKER));
  assert.ok(resultSent, "the tool's output went back upstream");
  const rows = await ledger();
  assert.ok(rows.length >= 2, `a call and an answer, got ${rows.length} rows`);
  assert.deepEqual(rows.filter((row) => row.status !== "ok"), []);
}

for (const upstream of ["chat", "messages"]) {
  Deno.test(`agents: Codex CLI runs a tool through a ${upstream} channel`, () =>
    withScope(async (s) => {
      const bin = await installAgents();
      const respond = agentScript("exec_command", { cmd: COMMAND });
      const { fake, gateway, secret, work } = await agentGateway(s, upstream, respond);
      try {
        const run = await runCodex(bin, work, {
          baseUrl: gateway.baseUrl,
          key: secret,
          model: "agent-model",
        }, "Run the shell command the task needs and tell me what it printed.");
        await assertCompleted(run, fake, () => gateway.ledger());
      } finally {
        await Deno.remove(work, { recursive: true });
      }
    }));
}

for (const upstream of ["chat", "responses"]) {
  Deno.test(`agents: Claude Code runs a tool through a ${upstream} channel`, () =>
    withScope(async (s) => {
      const bin = await installAgents();
      const respond = agentScript("Bash", { command: COMMAND, description: "Print the number" });
      const { fake, gateway, secret, work } = await agentGateway(s, upstream, respond);
      try {
        const run = await runClaudeCode(bin, work, {
          url: gateway.url,
          key: secret,
          model: "agent-model",
        }, "Run the shell command the task needs and tell me what it printed.");
        await assertCompleted(run, fake, () => gateway.ledger());
      } finally {
        await Deno.remove(work, { recursive: true });
      }
    }));
}
