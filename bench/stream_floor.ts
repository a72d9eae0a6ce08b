/**
 * What it costs on this runtime to let JavaScript see a stream's chunks at all: the
 * bench's fake upstream streams chat answers through four minimal proxies
 * (stream_floor_proxy.ts); prints streams/s, server CPU per chunk, the p50 each adds and
 * RSS. By default 64-chunk streams as fast as the fake sends them at concurrency 8; with
 * `--slow`, the memory phase's load (200 concurrent streams of 200 chunks paced by the
 * fake, as a model generates tokens), whose p50 and peak RSS are two of issue 9's targets.
 * Run by hand: `deno run -A bench/stream_floor.ts [--seconds 5] [--slow]`.
 */
import { parseArgs } from "node:util";
import { runFloorBench } from "./floor.ts";
import { DEFAULT_SLOW_CHUNKS, DEFAULT_SLOW_DELAY_MS } from "./fake_upstream.ts";
import { DEFAULT_MEMORY_STREAMS } from "./settings.ts";
import type { FloorMode } from "./stream_floor_proxy.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    slow: { type: "boolean", default: false },
  },
});
const CHUNKS = 64;
await runFloorBench({
  proxy: "stream_floor_proxy.ts",
  modes: ["native", "transform", "pull", "byob", "http1", "own-server"] satisfies FloorMode[],
  fakeArgs: [String(CHUNKS), String(DEFAULT_SLOW_CHUNKS), String(DEFAULT_SLOW_DELAY_MS)],
  upstreamPath: values.slow ? "/slow" : undefined,
  stream: true,
  concurrency: values.slow ? DEFAULT_MEMORY_STREAMS : 8,
  unitsPerRequest: values.slow ? DEFAULT_SLOW_CHUNKS : CHUNKS,
  unit: "chunk",
  seconds: Number(values.seconds),
});
