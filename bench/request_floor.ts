/**
 * What whole-answer metering costs on this runtime at the least: the bench's fake
 * upstream answers chat completions through three minimal proxies
 * (request_floor_proxy.ts) at concurrency 32; prints req/s and server CPU per request.
 * Run by hand: `deno run -A bench/request_floor.ts [--seconds 5]`.
 */
import { parseArgs } from "node:util";
import { runFloorBench } from "./floor.ts";
import type { RequestFloorMode } from "./request_floor_proxy.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" } } });
await runFloorBench({
  proxy: "request_floor_proxy.ts",
  modes: ["native", "parse", "ledger"] satisfies RequestFloorMode[],
  fakeArgs: [],
  stream: false,
  concurrency: 32,
  unitsPerRequest: 1,
  unit: "request",
  seconds: Number(values.seconds),
});
