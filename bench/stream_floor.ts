/**
 * What it costs on this runtime to let JavaScript see a stream's chunks at all: the
 * bench's fake upstream streams 64-chunk chat answers through three minimal proxies
 * (stream_floor_proxy.ts) at concurrency 8; prints streams/s and server CPU per chunk.
 * Run by hand: `deno run -A bench/stream_floor.ts [--seconds 5]`.
 */
import { parseArgs } from "node:util";
import { runFloorBench } from "./floor.ts";
import type { FloorMode } from "./stream_floor_proxy.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" } } });
const CHUNKS = 64;
await runFloorBench({
  proxy: "stream_floor_proxy.ts",
  modes: ["native", "transform", "pull", "byob"] satisfies FloorMode[],
  fakeArgs: [String(CHUNKS)],
  stream: true,
  concurrency: 8,
  unitsPerRequest: CHUNKS,
  unit: "chunk",
  seconds: Number(values.seconds),
});
