/**
 * What it costs on this runtime to let JavaScript see a stream's chunks at all: the
 * bench's fake upstream streams 64-chunk chat answers through three minimal proxies
 * (stream_floor_proxy.ts) at concurrency 8; prints streams/s and server CPU per chunk.
 * Run by hand: `deno run -A bench/stream_floor.ts [--seconds 5]`.
 */
import { parseArgs } from "node:util";
import { runLoad } from "./load.ts";
import { cpuMillis, startChild } from "./processes.ts";
import type { FloorMode } from "./stream_floor_proxy.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" } } });
const CHUNKS = 64;
const fake = await startChild("fake upstream", "fake_upstream.ts", [String(CHUNKS)]);
try {
  for (const mode of ["native", "transform", "pull"] as FloorMode[]) {
    const proxy = await startChild(`${mode} proxy`, "stream_floor_proxy.ts", [
      fake.ready.url,
      mode,
    ]);
    try {
      const phase = {
        url: `${proxy.ready.url}/v1/chat/completions`,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "bench",
          stream: true,
          messages: [{ role: "user", content: "hi" }],
        }),
        stream: true,
        concurrency: 8,
        durationMs: 2_000,
      };
      await runLoad(phase); // warm-up
      const before = await cpuMillis(proxy.pid);
      const result = await runLoad({ ...phase, durationMs: Number(values.seconds) * 1000 });
      const after = await cpuMillis(proxy.pid);
      const perChunk = before === undefined || after === undefined
        ? "n/a"
        : `${(((after - before) * 1000) / (result.requests * CHUNKS)).toFixed(1)} µs`;
      console.log(
        `${mode.padEnd(9)} ${result.requestsPerSecond.toFixed(0).padStart(5)} streams/s  ` +
          `${perChunk} CPU/chunk  ${result.errors} errors`,
      );
    } finally {
      await proxy.stop();
    }
  }
} finally {
  await fake.stop();
}
