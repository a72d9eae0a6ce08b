/**
 * What whole-answer metering costs on this runtime at the least: the bench's fake
 * upstream answers chat completions through three minimal proxies
 * (request_floor_proxy.ts) at concurrency 32; prints req/s and server CPU per request.
 * Run by hand: `deno run -A bench/request_floor.ts [--seconds 5]`.
 */
import { parseArgs } from "node:util";
import { runLoad } from "./load.ts";
import { cpuMillis, startChild } from "./processes.ts";
import type { RequestFloorMode } from "./request_floor_proxy.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" } } });
const fake = await startChild("fake upstream", "fake_upstream.ts", []);
try {
  for (const mode of ["native", "parse", "ledger"] as RequestFloorMode[]) {
    const proxy = await startChild(`${mode} proxy`, "request_floor_proxy.ts", [
      fake.ready.url,
      mode,
    ]);
    try {
      const phase = {
        url: `${proxy.ready.url}/v1/chat/completions`,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "bench", messages: [{ role: "user", content: "hi" }] }),
        stream: false,
        concurrency: 32,
        durationMs: 2_000,
      };
      await runLoad(phase); // warm-up
      const before = await cpuMillis(proxy.pid);
      const result = await runLoad({ ...phase, durationMs: Number(values.seconds) * 1000 });
      const after = await cpuMillis(proxy.pid);
      const perRequest = before === undefined || after === undefined
        ? "n/a"
        : `${(((after - before) * 1000) / result.requests).toFixed(0)} µs`;
      console.log(
        `${mode.padEnd(7)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s  ` +
          `${perRequest} CPU/request  ${result.errors} errors`,
      );
    } finally {
      await proxy.stop();
    }
  }
} finally {
  await fake.stop();
}
