/**
 * What cache affinity costs a request, and what its table holds in memory: naming a
 * conversation (a chat turn, a coding agent's 100 KB turn), planning with and without a
 * binding, and the heap of a full table. Run by hand:
 * `deno run -A --v8-flags=--expose-gc bench/affinity.ts`.
 */
import { testPrincipal } from "../src/auth/test_support.ts";
import { parseConfig } from "../src/config/schema.ts";
import { AFFINITY_CAPACITY, createAffinityTable } from "../src/routing/affinity.ts";
import { conversationName } from "../src/routing/conversation.ts";
import { createRouter } from "../src/routing/router.ts";

/** Microseconds per call of `run`, over enough calls to take about half a second. */
function perCall(run: (i: number) => void): number {
  for (let i = 0; i < 1_000; i++) run(i);
  let calls = 1_000;
  for (;;) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) run(i);
    const ms = performance.now() - start;
    if (ms > 500) return (ms * 1000) / calls;
    calls *= 4;
  }
}

const headers = new Map<string, string>();
const chat = {
  model: "m",
  messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Plan a trip." }],
};
// A coding agent's turn: a long system prompt and history, ~100 KB.
const agent = {
  model: "m",
  system: "You are a coding agent. ".repeat(400),
  messages: Array.from({ length: 60 }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: `Step ${i}: ` + "some file content ".repeat(80),
  })),
};
const request = (protocol: "chat" | "messages", body: Record<string, unknown>) => ({
  protocol,
  model: "m",
  stream: false,
  body,
});

const config = parseConfig({
  groups: { default: {} },
  channels: ["a", "b"].map((name) => ({
    name,
    protocol: "chat",
    base_url: `http://${name}`,
    models: ["m"],
    keys: [`${name}0`, `${name}1`],
  })),
});
const off = parseConfig({ ...config, routing: { cache_affinity: false } });
const router = createRouter({ now: () => 0 });
const principal = testPrincipal();
const serve = (which: typeof config, conversation: string | undefined) => {
  const plan = router.plan(which, principal, "m", "chat", conversation);
  plan.succeed(plan.next()!);
};

const rows: [string, number][] = [
  [
    "name a chat turn (prompt start)",
    perCall(() => conversationName(request("chat", chat), headers, "key_bench")),
  ],
  [
    `name a ${Math.round(JSON.stringify(agent).length / 1024)} KB agent turn (prompt start)`,
    perCall(() => conversationName(request("messages", agent), headers, "key_bench")),
  ],
  ["plan + serve, affinity off", perCall(() => serve(off, "c"))],
  ["plan + serve, no conversation", perCall(() => serve(config, undefined))],
  ["plan + serve, bound conversation", perCall(() => serve(config, "c"))],
  ["plan + serve, 100k conversations", perCall((i) => serve(config, `c${i % 100_000}`))],
];
for (const [what, us] of rows) console.log(`${what.padEnd(40)} ${us.toFixed(2)} µs`);

// The heap of a full table, names as conversationName makes them (22 characters).
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  gc();
  const before = Deno.memoryUsage().heapUsed;
  const table = createAffinityTable({ now: () => 0 });
  for (let i = 0; i < AFFINITY_CAPACITY; i++) {
    const name = conversationName(request("chat", chat), headers, `key_${i}`);
    table.bind(`m\u0000${name}`, { channel: "a", key: "a0" }, 3_600_000);
  }
  gc();
  const mib = (Deno.memoryUsage().heapUsed - before) / 2 ** 20;
  console.log(`heap of ${table.size} bindings`.padEnd(40), `${mib.toFixed(1)} MiB`);
} else console.log("(run with --v8-flags=--expose-gc for the table's heap)");
