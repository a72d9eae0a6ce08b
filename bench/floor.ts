/**
 * The driver of the floor benches (stream_floor.ts, request_floor.ts): each mode of a
 * minimal proxy in its own process in front of the bench's fake upstream, warmed up,
 * then loaded for the phase while the proxy's CPU time is read; one line per mode.
 */
import { runLoad } from "./load.ts";
import { sampleRss } from "./memory.ts";
import { cpuMillis, rssKib, startChild } from "./processes.ts";
import { mib } from "./table.ts";

/** What a floor bench measures. */
export interface FloorBench {
  /** The proxy script in bench/ and the modes it takes as its second argument. */
  proxy: string;
  modes: readonly string[];
  /** Arguments of the fake upstream (bench/fake_upstream.ts). */
  fakeArgs: string[];
  /** Where on the fake the proxies' upstream is (`/slow` for its paced streams); its root if unset. */
  upstreamPath?: string;
  stream: boolean;
  concurrency: number;
  /** Units of work per request, and their name: 64 chunks a stream, 1 request. */
  unitsPerRequest: number;
  unit: string;
  seconds: number;
}

/**
 * Runs every mode of the bench in turn and prints its throughput, CPU per unit, p50
 * latency and RSS (idle, and the peak under the load); first the fake upstream alone
 * (`direct`), whose p50 the others' added p50 is measured against.
 */
export async function runFloorBench(bench: FloorBench): Promise<void> {
  const fake = await startChild("fake upstream", "fake_upstream.ts", bench.fakeArgs);
  try {
    const upstream = `${fake.ready.url}${bench.upstreamPath ?? ""}`;
    const load = (url: string, durationMs: number) =>
      runLoad({
        url: `${url}/v1/chat/completions`,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "bench",
          stream: bench.stream,
          messages: [{ role: "user", content: "hi" }],
        }),
        stream: bench.stream,
        concurrency: bench.concurrency,
        durationMs,
      });
    await load(upstream, 2_000); // warm-up
    const direct = await load(upstream, bench.seconds * 1000);
    console.log(`${"direct".padEnd(9)} p50 ${direct.latency.p50.toFixed(3)} ms (no proxy)`);
    for (const mode of bench.modes) {
      const proxy = await startChild(`${mode} proxy`, bench.proxy, [upstream, mode]);
      try {
        const idleKib = await rssKib(proxy.pid);
        await load(proxy.ready.url, 2_000); // warm-up
        const before = await cpuMillis(proxy.pid);
        const rss = sampleRss(proxy.pid);
        const result = await load(proxy.ready.url, bench.seconds * 1000);
        const peakKib = await rss.stop();
        const after = await cpuMillis(proxy.pid);
        const perUnit = before === undefined || after === undefined
          ? "n/a"
          : `${
            (((after - before) * 1000) / (result.requests * bench.unitsPerRequest)).toFixed(1)
          } µs`;
        console.log(
          `${mode.padEnd(9)} ${result.requestsPerSecond.toFixed(0).padStart(6)} ` +
            `${bench.stream ? "streams" : "req"}/s  ${perUnit} CPU/${bench.unit}  ` +
            `p50 ${result.latency.p50.toFixed(3)} ms (added ${
              (result.latency.p50 - direct.latency.p50).toFixed(3)
            })  RSS ${mib(idleKib)} idle, ${mib(peakKib)} peak  ${result.errors} errors`,
        );
      } finally {
        await proxy.stop();
      }
    }
  } finally {
    await fake.stop();
  }
}
