/**
 * What whole-answer metering costs on this runtime at the least: the bench's fake
 * upstream answers chat completions through seven minimal proxies
 * (request_floor_proxy.ts); prints req/s, server CPU per request and the p50 latency each
 * adds to the upstream's. Run by hand:
 * `deno run -A bench/request_floor.ts [--seconds 5] [--concurrency 32]` (concurrency 1
 * measures the latency a request pays alone).
 */
import { parseArgs } from "node:util";
import { runFloorBench } from "./floor.ts";
import type { RequestFloorMode } from "./request_floor_proxy.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    concurrency: { type: "string", default: "32" },
  },
});
await runFloorBench({
  proxy: "request_floor_proxy.ts",
  modes: [
    "native",
    "parse",
    "ledger",
    "hold",
    "http1",
    "http1-hold",
    "http1-store",
    "own-server",
  ] satisfies RequestFloorMode[],
  fakeArgs: [],
  stream: false,
  concurrency: Number(values.concurrency),
  unitsPerRequest: 1,
  unit: "request",
  seconds: Number(values.seconds),
});
