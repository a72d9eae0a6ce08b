/**
 * The memory phase: many concurrent slow streams (the fake paces their chunks like a
 * model generating tokens) against fresh processes of the bare proxy and tollgate priced,
 * with each one's RSS when idle before the load and at its peak during it (VmRSS sampled
 * every 50 ms), the whole-stream p50 and the server CPU per streamed chunk (token).
 */
import { runLoad } from "./load.ts";
import { checkAnswers, measure } from "./measure.ts";
import { rssKib } from "./processes.ts";
import { errors, mib, ms, opt, table } from "./table.ts";
import { requestOf, type Target } from "./targets.ts";
import type { PhaseResult, Ratio } from "./results.ts";

/**
 * The memory phase's middle target: bench/stream_floor_proxy.ts, a relay that reads each
 * chunk through tollgate's own HTTP/1.1 client and passes it on, and nothing else (until
 * 2026-11-25 a relay reading through fetch).
 */
export const METERING_FLOOR = "metering floor";

/** How often the RSS sampler reads `/proc/<pid>/status`. */
export const RSS_SAMPLE_MS = 50;

/** A running RSS sampler. */
export interface RssSampler {
  /** Stops sampling; resolves the highest VmRSS seen (KiB), undefined without /proc. */
  stop(): Promise<number | undefined>;
}

/** Reads process `pid`'s VmRSS every `everyMs` (one read at a time) until stopped. */
export function sampleRss(pid: number, everyMs = RSS_SAMPLE_MS): RssSampler {
  let peak: number | undefined;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const read = async () => {
    const kib = await rssKib(pid);
    if (kib !== undefined) peak = Math.max(peak ?? 0, kib);
  };
  let running = read();
  const loop = () => {
    if (stopped) return;
    running = read().then(() => void (timer = setTimeout(loop, everyMs)));
  };
  timer = setTimeout(loop, everyMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await read();
      return peak;
    },
  };
}

/** What the memory phase needs from the bench's settings. */
export interface MemorySettings {
  duration: number;
  warmup: number;
  memoryStreams: number;
  slowChunks: number;
}

/** One target's concurrent slow streams. */
export interface MemoryResult {
  target: string;
  /** VmRSS after start and a check of its answers, before any load (KiB). */
  idleRssKib?: number;
  /** The highest VmRSS sampled during the measured load (KiB). */
  peakRssKib?: number;
  /** Server CPU per streamed content chunk, µs. */
  cpuMicrosPerChunk?: number;
  result: PhaseResult;
}

/**
 * Checks every target and reads its idle RSS, then for each in turn: a warm-up at the
 * phase's concurrency, and the measured load with its RSS sampled.
 */
export async function runMemory(
  targets: Target[],
  settings: MemorySettings,
  progress: (line: string) => void,
): Promise<MemoryResult[]> {
  const idle: (number | undefined)[] = [];
  for (const target of targets) {
    await checkAnswers(
      target.name,
      "chat",
      (stream) => requestOf(target, stream),
      settings.slowChunks,
    );
    idle.push(await rssKib(target.server.pid));
  }
  const phase = (target: Target, seconds: number) => ({
    ...requestOf(target, true),
    stream: true,
    concurrency: settings.memoryStreams,
    durationMs: seconds * 1000,
  });
  const results: MemoryResult[] = [];
  for (const [index, target] of targets.entries()) {
    progress(`warming up ${target.name} (${settings.memoryStreams} slow streams)`);
    await runLoad(phase(target, settings.warmup));
    progress(`${settings.memoryStreams} slow streams ${target.name}`);
    const sampler = sampleRss(target.server.pid);
    const result = await measure(target.server.pid, phase(target, settings.duration));
    const peakRssKib = await sampler.stop();
    if (result.errors > 0) {
      progress(`${target.name}: ${result.errors} errors, first: ${result.firstError}`);
    }
    results.push({
      target: target.name,
      idleRssKib: idle[index],
      peakRssKib,
      cpuMicrosPerChunk: result.cpuMs === undefined || result.requests === 0
        ? undefined
        : (result.cpuMs * 1000) / (result.requests * settings.slowChunks),
      result,
    });
  }
  return results;
}

/** The most tollgate may use when idle (issues 9 and 34), in KiB. */
const IDLE_RSS_MOST_KIB = 80 * 1024;

/** tollgate against the bare proxy: whole-stream p50, CPU per token, peak RSS; idle RSS. */
export function memoryRatios(results: MemoryResult[], base: string, tollgate: string): Ratio[] {
  const proxy = results.find((r) => r.target === base);
  const gateway = results.find((r) => r.target === tollgate);
  if (!proxy || !gateway) return [];
  const out: Ratio[] = [];
  const ratio = (name: string, a: number | undefined, b: number | undefined, most: number) => {
    if (a === undefined || !b) return;
    const value = a / b;
    out.push({
      name: `${name} ${tollgate} / ${base}`,
      value,
      target: `<= ${most}`,
      met: value <= most,
    });
  };
  ratio("slow streams p50", gateway.result.latency.p50, proxy.result.latency.p50, 1.3);
  ratio("slow streams CPU/token", gateway.cpuMicrosPerChunk, proxy.cpuMicrosPerChunk, 1.5);
  // Issue 34: the proxy pipes bodies natively while a metering gateway must read them, which
  // alone puts the floor near 1.72x.
  ratio("slow streams peak RSS", gateway.peakRssKib, proxy.peakRssKib, 2.0);
  if (gateway.idleRssKib !== undefined) {
    out.push({
      name: `idle RSS ${tollgate} (MiB)`,
      value: gateway.idleRssKib / 1024,
      target: `<= ${IDLE_RSS_MOST_KIB / 1024}`,
      met: gateway.idleRssKib <= IDLE_RSS_MOST_KIB,
    });
  }
  return out;
}

/** The memory phase's table. */
export function memoryTable(
  results: MemoryResult[],
  settings: MemorySettings & {
    slowDelayMs: number;
  },
): string[] {
  if (results.length === 0) return [];
  return [
    `${settings.memoryStreams} concurrent streams of ${settings.slowChunks} chunks, one every ` +
    `${settings.slowDelayMs} ms (fresh processes)`,
    table(
      [
        "target",
        "streams/s",
        "TTFB p50 ms",
        "stream p50 ms",
        "stream p99 ms",
        "server CPU µs/token",
        "idle RSS MiB",
        "peak RSS MiB",
      ],
      results.map((r) => [
        r.target,
        r.result.requestsPerSecond.toFixed(0) + errors(r.result),
        ms(r.result.ttfb!.p50),
        ms(r.result.latency.p50),
        ms(r.result.latency.p99),
        opt(r.cpuMicrosPerChunk, 1),
        mib(r.idleRssKib),
        mib(r.peakRssKib),
      ]),
    ),
    `(idle: after start and one request of each kind; peak: VmRSS sampled every ` +
    `${RSS_SAMPLE_MS} ms during the measured load)`,
    ...floorLine(results),
    "",
  ];
}

/** The metering floor's figures against the bare proxy's: where the runtime puts the targets. */
function floorLine(results: MemoryResult[]): string[] {
  const [proxy, floor] = ["bare proxy", METERING_FLOOR].map((name) =>
    results.find((r) => r.target === name)
  );
  if (!proxy || !floor) return [];
  const times = (a: number | undefined, b: number | undefined) =>
    a === undefined || !b ? "n/a" : `${(a / b).toFixed(2)}x`;
  return [
    `(${METERING_FLOOR}: a relay that only reads each chunk with tollgate's HTTP/1.1 client, ` +
    `the least a metering gateway of its design does; against the bare proxy: stream p50 ` +
    `${times(floor.result.latency.p50, proxy.result.latency.p50)}, CPU/token ` +
    `${times(floor.cpuMicrosPerChunk, proxy.cpuMicrosPerChunk)}, peak RSS ` +
    `${times(floor.peakRssKib, proxy.peakRssKib)})`,
  ];
}
