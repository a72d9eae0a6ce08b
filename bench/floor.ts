/**
 * The driver of the floor benches (stream_floor.ts, request_floor.ts): each mode of a
 * minimal proxy in its own process in front of the bench's fake upstream, warmed up,
 * then loaded for the phase while the proxy's CPU time is read; one line per mode.
 */
import { runLoad } from "./load.ts";
import { cpuMillis, startChild } from "./processes.ts";

/** What a floor bench measures. */
export interface FloorBench {
  /** The proxy script in bench/ and the modes it takes as its second argument. */
  proxy: string;
  modes: readonly string[];
  /** Arguments of the fake upstream (bench/fake_upstream.ts). */
  fakeArgs: string[];
  stream: boolean;
  concurrency: number;
  /** Units of work per request, and their name: 64 chunks a stream, 1 request. */
  unitsPerRequest: number;
  unit: string;
  seconds: number;
}

/**
 * Runs every mode of the bench in turn and prints its throughput, CPU per unit and p50
 * latency; first the fake upstream alone (`direct`), whose p50 the others' added p50 is
 * measured against.
 */
export async function runFloorBench(bench: FloorBench): Promise<void> {
  const fake = await startChild("fake upstream", "fake_upstream.ts", bench.fakeArgs);
  try {
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
    await load(fake.ready.url, 2_000); // warm-up
    const direct = await load(fake.ready.url, bench.seconds * 1000);
    console.log(`${"direct".padEnd(9)} p50 ${direct.latency.p50.toFixed(3)} ms (no proxy)`);
    for (const mode of bench.modes) {
      const proxy = await startChild(`${mode} proxy`, bench.proxy, [fake.ready.url, mode]);
      try {
        await load(proxy.ready.url, 2_000); // warm-up
        const before = await cpuMillis(proxy.pid);
        const result = await load(proxy.ready.url, bench.seconds * 1000);
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
            })  ${result.errors} errors`,
        );
      } finally {
        await proxy.stop();
      }
    }
  } finally {
    await fake.stop();
  }
}
