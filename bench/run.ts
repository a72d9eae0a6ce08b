/**
 * tollgate's load and latency bench (`deno task bench`, see bench/README.md).
 *
 * Starts a fast fake upstream, a bare Hono + fetch pass-through proxy and tollgate, each
 * in its own process, then drives the same load at each target from this process:
 * non-stream chat at concurrency 1 and C, and N-chunk streams at concurrency 1 and S.
 * Prints a table and the ratios the performance targets are stated in (`--json`: JSON).
 */
import { parseArgs } from "node:util";
import { runLoad } from "./load.ts";
import { type ChildServer, cpuMillis, machine, startChild } from "./processes.ts";
import { type PhaseResult, printReport, type Ratio, ratios, type TargetResults } from "./report.ts";

/** The bench's settings, from flags or `BENCH_*` environment variables. */
export interface Settings {
  /** Seconds each phase runs per target. */
  duration: number;
  /** Seconds of warm-up load per target before any measurement. */
  warmup: number;
  concurrency: number;
  streamConcurrency: number;
  chunks: number;
  json: boolean;
}

const USAGE = `Usage: deno task bench [--duration S] [--warmup S] [--concurrency N]
                        [--stream-concurrency N] [--chunks N] [--json]
  --duration S            seconds per phase and target (BENCH_DURATION, default 5)
  --warmup S              seconds of warm-up per target (BENCH_WARMUP, default 2)
  --concurrency N         non-stream concurrency of the loaded phase (BENCH_CONCURRENCY, 32)
  --stream-concurrency N  stream concurrency of the loaded phase (BENCH_STREAM_CONCURRENCY, 8)
  --chunks N              content chunks per stream (BENCH_CHUNKS, default 64)
  --json                  print one JSON object instead of the table`;

function settingsFrom(args: string[]): Settings {
  const { values } = parseArgs({
    args,
    options: {
      duration: { type: "string" },
      warmup: { type: "string" },
      concurrency: { type: "string" },
      "stream-concurrency": { type: "string" },
      chunks: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    Deno.exit(0);
  }
  const number = (flag: string | undefined, env: string, fallback: number, integer = false) => {
    const text = flag ?? Deno.env.get(env);
    const value = text === undefined ? fallback : Number(text);
    if (!(value > 0) || (integer && !Number.isInteger(value))) {
      const kind = integer ? "a positive integer" : "a positive number";
      throw new Error(`Invalid ${env} (or its flag): "${text}" is not ${kind}.`);
    }
    return value;
  };
  return {
    duration: number(values.duration, "BENCH_DURATION", 5),
    warmup: number(values.warmup, "BENCH_WARMUP", 2),
    concurrency: number(values.concurrency, "BENCH_CONCURRENCY", 32, true),
    streamConcurrency: number(values["stream-concurrency"], "BENCH_STREAM_CONCURRENCY", 8, true),
    chunks: number(values.chunks, "BENCH_CHUNKS", 64, true),
    json: values.json || Deno.env.get("BENCH_JSON") === "1",
  };
}

/** One thing under load: where to send, with which key and model, and whose CPU to read. */
interface Target {
  name: string;
  url: string;
  key?: string;
  model: string;
  /** The process serving it: the fake for direct, else the proxy. */
  server: ChildServer;
}

function requestOf(target: Target, stream: boolean) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (target.key) headers.authorization = `Bearer ${target.key}`;
  const body = JSON.stringify({
    model: target.model,
    messages: [{ role: "user", content: "Say hello to the bench." }],
    max_tokens: 256,
    ...(stream ? { stream: true } : {}),
  });
  return { url: `${target.url}/v1/chat/completions`, headers, body };
}

/** One request of each kind, checked, so a broken target fails fast with its reason. */
async function checkTarget(target: Target, chunks: number): Promise<void> {
  for (const stream of [false, true]) {
    const { url, headers, body } = requestOf(target, stream);
    const response = await fetch(url, { method: "POST", headers, body });
    const text = await response.text();
    if (response.status !== 200) {
      throw new Error(`${target.name} answered ${response.status}: ${text.slice(0, 500)}`);
    }
    const relayed = text.match(/"content":"tok\d+ "/g)?.length ?? 0;
    if (stream && (relayed !== chunks || !text.includes("[DONE]"))) {
      throw new Error(`${target.name} relayed ${relayed} of ${chunks} chunks: ${text.slice(-300)}`);
    }
  }
}

/** Runs one phase against one target, with the serving process's CPU time around it. */
async function measure(
  target: Target,
  stream: boolean,
  concurrency: number,
  seconds: number,
): Promise<PhaseResult> {
  const before = await cpuMillis(target.server.pid);
  const result = await runLoad({
    ...requestOf(target, stream),
    stream,
    concurrency,
    durationMs: seconds * 1000,
  });
  const after = await cpuMillis(target.server.pid);
  const cpuMs = before === undefined || after === undefined ? undefined : after - before;
  const cpuMicrosPerRequest = cpuMs === undefined || result.requests === 0
    ? undefined
    : (cpuMs * 1000) / result.requests;
  return { ...result, concurrency, stream, cpuMs, cpuMicrosPerRequest };
}

async function main(): Promise<void> {
  const settings = settingsFrom(Deno.args);
  const progress = (line: string) => console.error(`bench: ${line}`);
  const children: ChildServer[] = [];
  try {
    progress("starting the fake upstream, the bare proxy and tollgate");
    const fake = await startChild("fake upstream", "fake_upstream.ts", [String(settings.chunks)]);
    children.push(fake);
    const [proxy, tollgate] = await Promise.all([
      startChild("bare proxy", "bare_proxy.ts", [fake.ready.url]),
      startChild("tollgate", "tollgate_server.ts", [fake.ready.url], [
        "--unstable-no-legacy-abort",
      ]),
    ]);
    children.push(proxy, tollgate);
    const targets: Target[] = [
      { name: "direct", url: fake.ready.url, model: "bench", server: fake },
      { name: "bare proxy", url: proxy.ready.url, model: "bench", server: proxy },
      {
        name: "tollgate unpriced",
        url: tollgate.ready.url,
        key: String(tollgate.ready.unpricedKey),
        model: "bench-unpriced",
        server: tollgate,
      },
      {
        name: "tollgate priced",
        url: tollgate.ready.url,
        key: String(tollgate.ready.pricedKey),
        model: "bench-priced",
        server: tollgate,
      },
    ];

    for (const target of targets) {
      await checkTarget(target, settings.chunks);
      progress(`warming up ${target.name}`);
      const half = (settings.warmup * 1000) / 2;
      await runLoad({
        ...requestOf(target, false),
        stream: false,
        concurrency: settings.concurrency,
        durationMs: half,
      });
      await runLoad({
        ...requestOf(target, true),
        stream: true,
        concurrency: settings.streamConcurrency,
        durationMs: half,
      });
    }

    // Phase by phase, all targets in turn, so slow drift of the machine hits all alike.
    const phases = [
      { key: "chat_c1", stream: false, concurrency: 1 },
      { key: "chat_cN", stream: false, concurrency: settings.concurrency },
      { key: "stream_c1", stream: true, concurrency: 1 },
      { key: "stream_cN", stream: true, concurrency: settings.streamConcurrency },
    ] as const;
    const results: TargetResults[] = targets.map((target) => ({ target: target.name, phases: {} }));
    for (const phase of phases) {
      for (const [index, target] of targets.entries()) {
        progress(`${phase.key} ${target.name}`);
        const result = await measure(target, phase.stream, phase.concurrency, settings.duration);
        if (result.errors > 0) {
          progress(`${target.name}: ${result.errors} errors, first: ${result.firstError}`);
        }
        results[index]!.phases[phase.key] = result;
      }
    }

    const summary: Ratio[] = ratios(results);
    const report = {
      date: new Date().toISOString(),
      machine: await machine(),
      deno: Deno.version.deno,
      settings,
      results,
      ratios: summary,
    };
    if (settings.json) console.log(JSON.stringify(report, null, 2));
    else printReport(report);
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
}

if (import.meta.main) {
  try {
    await main();
  } catch (error) {
    console.error(`bench: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
