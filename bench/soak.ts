/**
 * The soak: many concurrent streaming clients held open for a minute, then a long run
 * of short requests, with a config reload in the middle of each phase. Reports peak
 * and final RSS of the tollgate process, errors, p99 time to first byte, and whether
 * every request left exactly one ledger row. Run by hand (not in CI):
 *
 *   deno run -A bench/soak.ts [--streams 1000] [--hold 60] [--requests 100000] [--concurrency 32]
 */
import { parseArgs } from "node:util";
import { openDatabase } from "../src/db/database.ts";
import { percentiles } from "./load.ts";
import { startChild } from "./processes.ts";
import { soakConfig } from "./soak_server.ts";

const { values } = parseArgs({
  options: {
    streams: { type: "string", default: "1000" },
    hold: { type: "string", default: "60" },
    requests: { type: "string", default: "100000" },
    concurrency: { type: "string", default: "32" },
  },
});
const streams = Number(values.streams);
const holdSeconds = Number(values.hold);
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
const GAP_MS = 2_000;

const progress = (line: string) => console.error(`[soak] ${line}`);

async function rssMiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const upstream = await startChild("soak upstream", "soak_upstream.ts", [
  String(Math.max(1, Math.round((holdSeconds * 1000) / GAP_MS))),
  String(GAP_MS),
]);
const tollgate = await startChild("tollgate", "soak_server.ts", [upstream.ready.url], [
  "--unstable-no-legacy-abort",
]);
const { url, key, configPath, dbPath } = tollgate.ready as unknown as {
  url: string;
  key: string;
  configPath: string;
  dbPath: string;
};
const reload = (variant: number) =>
  Deno.writeTextFile(configPath, soakConfig(dbPath, upstream.ready.url, variant));
const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
const body = (stream: boolean) =>
  JSON.stringify({ model: "soak", stream, messages: [{ role: "user", content: "hello" }] });

let peak = await rssMiB(tollgate.pid);
const idle = peak;
const sampler = setInterval(async () => {
  peak = Math.max(peak, await rssMiB(tollgate.pid).catch(() => 0));
}, 250);
let errors = 0;
let firstError: string | undefined;
const fail = (why: string) => {
  errors++;
  firstError ??= why;
};

// Phase 1: every stream open at once, held for the upstream's whole answer.
progress(`${streams} streams for ${holdSeconds} s`);
const ttfb: number[] = [];
const reloadTimer = setTimeout(() => void reload(1), (holdSeconds * 1000) / 2);
await Promise.all(Array.from({ length: streams }, async () => {
  const sent = performance.now();
  try {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers,
      body: body(true),
    });
    const reader = response.body!.getReader();
    let text = "";
    let first = true;
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (first) {
        ttfb.push(performance.now() - sent);
        first = false;
      }
      text += decoder.decode(value, { stream: true });
    }
    if (response.status !== 200 || !text.includes("[DONE]")) {
      fail(`stream: HTTP ${response.status} ${text.slice(-200)}`);
    }
  } catch (error) {
    fail(`stream: ${error}`);
  }
}));
clearTimeout(reloadTimer);
const afterStreams = await rssMiB(tollgate.pid);

// Phase 2: short requests by a closed loop of workers; a reload halfway.
progress(`${requests} short requests at concurrency ${concurrency}`);
let next = 0;
const latencies: number[] = [];
await Promise.all(Array.from({ length: concurrency }, async () => {
  while (next < requests) {
    const n = next++;
    if (n === Math.floor(requests / 2)) await reload(2);
    const sent = performance.now();
    try {
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers,
        body: body(false),
      });
      const text = await response.text();
      if (response.status !== 200) fail(`request: HTTP ${response.status} ${text.slice(0, 200)}`);
      latencies.push(performance.now() - sent);
    } catch (error) {
      fail(`request: ${error}`);
    }
  }
}));
clearInterval(sampler);

// Settlements are written after the answers: wait until the ledger stops growing.
const db = await openDatabase(`file:${dbPath}`);
const count = async () => {
  const row = await db.kysely.selectFrom("ledger")
    .select((
      eb,
    ) => [
      eb.fn.countAll<number>().as("rows"),
      eb.fn.count<number>("request_id").distinct().as("ids"),
    ])
    .executeTakeFirstOrThrow();
  return { rows: Number(row.rows), ids: Number(row.ids) };
};
let ledger = await count();
for (let i = 0; i < 50; i++) {
  await new Promise((resolve) => setTimeout(resolve, 200));
  const again = await count();
  if (again.rows === ledger.rows) break;
  ledger = again;
}
await db.close();
const final = await rssMiB(tollgate.pid);
await tollgate.stop();
await upstream.stop();

const sentTotal = streams + requests;
const streamTtfb = percentiles(ttfb);
const requestLatency = percentiles(latencies);
console.log(JSON.stringify(
  {
    streams,
    holdSeconds,
    requests,
    concurrency,
    rssMiB: {
      idle: Math.round(idle),
      peak: Math.round(peak),
      afterStreams: Math.round(afterStreams),
      final: Math.round(final),
    },
    errors,
    firstError,
    streamTtfbMs: { p50: streamTtfb.p50, p99: streamTtfb.p99 },
    requestLatencyMs: { p50: requestLatency.p50, p99: requestLatency.p99 },
    ledger: { requestsSent: sentTotal, rows: ledger.rows, distinctRequestIds: ledger.ids },
    oneRowPerRequest: ledger.rows === sentTotal && ledger.ids === sentTotal,
  },
  null,
  2,
));
