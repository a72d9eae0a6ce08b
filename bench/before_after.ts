/**
 * A before/after of a whole change (issue 41): tollgate from this checkout against tollgate
 * from `--base DIR` (another checkout, e.g. `git worktree add /tmp/base 3d9d4de`), each
 * run as `deno task start` runs it (its own checkout's deno.json flags), on the priced
 * model, in one run: chat whole answers at concurrency 32 and 1 (wrk), streams of 64
 * chunks at the stream concurrency (the fetch loop), and each side's RSS (idle after
 * start and a check, and its peak, sampled every 50 ms over the whole run). Every round
 * takes one slice of each phase from each side, the two sides swapping places every round
 * so that the host's drift and the slice order hit both alike. Prints each side's median
 * slice and this/base as the median of the rounds' ratios, +/- twice their standard
 * error. Run by hand:
 * `deno run -A bench/before_after.ts --base DIR [--rounds 8] [--seconds 3]
 * [--stream-concurrency 8] [--json]`.
 */
import { parseArgs } from "node:util";
import { runLoad } from "./load.ts";
import { checkAnswers, measure, median, pairedRatio } from "./measure.ts";
import { sampleRss } from "./memory.ts";
import { type ChildServer, rssKib, startChild, tollgateRuntimeFlags } from "./processes.ts";
import { clientRequest } from "./protocols.ts";
import type { PhaseResult } from "./results.ts";
import { table } from "./table.ts";
import { checkWrk, runWrk } from "./wrk.ts";

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    rounds: { type: "string", default: "8" },
    seconds: { type: "string", default: "3" },
    "stream-concurrency": { type: "string", default: "8" },
    json: { type: "boolean", default: false },
  },
});
if (!values.base) {
  throw new Error(
    "Usage: deno run -A bench/before_after.ts --base DIR [--rounds N] [--seconds S] [--json]",
  );
}
const base = new URL(`file://${Deno.realPathSync(values.base)}/`);
const rounds = Number(values.rounds);
const sliceMs = Number(values.seconds) * 1000;
const streamConcurrency = Number(values["stream-concurrency"]);
const CHUNKS = 64;

/** One phase of the comparison: what load, and which figures it reports. */
interface Phase {
  name: string;
  stream: boolean;
  concurrency: number;
}
const PHASES: Phase[] = [
  { name: "chat c32", stream: false, concurrency: 32 },
  { name: "chat c1", stream: false, concurrency: 1 },
  { name: `streams c${streamConcurrency}`, stream: true, concurrency: streamConcurrency },
];

await checkWrk();
const fake = await startChild("fake upstream", "fake_upstream.ts", [String(CHUNKS)]);
const children: ChildServer[] = [fake];
try {
  const upstream = fake.ready.url;
  const start = (name: string, root?: URL) =>
    startChild(name, "tollgate_server.ts", [upstream], tollgateRuntimeFlags(undefined, root), root);
  const sides = [
    { name: "base", server: await start("tollgate base", base) },
    { name: "this", server: await start("tollgate") },
  ];
  children.push(...sides.map((side) => side.server));
  const requestOf = (server: ChildServer, stream: boolean) =>
    clientRequest("chat", {
      baseUrl: server.ready.url,
      model: "bench-priced",
      key: String(server.ready.pricedKey),
    }, stream);
  for (const side of sides) {
    await checkAnswers(side.name, "chat", (stream) => requestOf(side.server, stream), CHUNKS);
  }
  const idleKib = await Promise.all(sides.map((side) => rssKib(side.server.pid)));
  const samplers = sides.map((side) => sampleRss(side.server.pid));
  const load = (phase: Phase, server: ChildServer, durationMs: number) => {
    const loadPhase = {
      ...requestOf(server, phase.stream),
      stream: phase.stream,
      concurrency: phase.concurrency,
      durationMs,
    };
    return measure(server.pid, loadPhase, phase.stream ? runLoad : runWrk);
  };
  for (const phase of PHASES) for (const side of sides) await load(phase, side.server, 2_000);

  const slices = PHASES.map(() => sides.map(() => [] as PhaseResult[]));
  for (let round = 0; round < rounds; round++) {
    console.error(`round ${round + 1}/${rounds}`);
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const [p, phase] of PHASES.entries()) {
      for (const s of order) {
        await load(phase, sides[s]!.server, 1_000);
        slices[p]![s]!.push(await load(phase, sides[s]!.server, sliceMs));
      }
    }
  }
  const peakKib = await Promise.all(samplers.map((sampler) => sampler.stop()));

  /** One figure: each side's median slice, and this over base round by round. */
  const rows: { figure: string; base: number; this: number; ratio: number; spread: number }[] = [];
  const figure = (name: string, p: number, of: (slice: PhaseResult) => number | undefined) => {
    const [before, after] = [0, 1].map((s) => slices[p]![s]!.map((slice) => of(slice) ?? NaN));
    const { value, spread } = pairedRatio(after!, before!);
    rows.push({ figure: name, base: median(before!), this: median(after!), ratio: value, spread });
  };
  for (const [p, phase] of PHASES.entries()) {
    const per = phase.stream ? "streams/s" : "req/s";
    figure(`${phase.name} ${per}`, p, (slice) => slice.requestsPerSecond);
    figure(`${phase.name} p50 ms`, p, (slice) => slice.latency.p50);
    figure(`${phase.name} p99 ms`, p, (slice) => slice.latency.p99);
    if (phase.stream) figure(`${phase.name} TTFB p50 ms`, p, (slice) => slice.ttfb?.p50);
    figure(`${phase.name} CPU µs a request`, p, (slice) => slice.cpuMicrosPerRequest);
  }
  const errors = slices.flat(2).reduce((sum, slice) => sum + slice.errors, 0);
  const memory = sides.map((side, s) => ({
    side: side.name,
    idleMib: idleKib[s] === undefined ? undefined : idleKib[s]! / 1024,
    peakMib: peakKib[s] === undefined ? undefined : peakKib[s]! / 1024,
  }));
  if (values.json) {
    console.log(JSON.stringify({ rounds, sliceSeconds: sliceMs / 1000, rows, memory, errors }));
  } else {
    console.log(
      `${rounds} rounds of ${sliceMs / 1000} s slices a side and phase; errors ${errors}`,
    );
    const digits = (value: number) => value.toFixed(value >= 100 ? 0 : 3);
    console.log(table(
      ["figure", "base", "this", "this/base"],
      rows.map((row) => [
        row.figure,
        digits(row.base),
        digits(row.this),
        `${row.ratio.toFixed(3)} ± ${row.spread.toFixed(3)}`,
      ]),
    ));
    for (const { side, idleMib, peakMib } of memory) {
      console.log(
        `${side}: RSS after start and a check ${idleMib?.toFixed(1) ?? "n/a"} MiB, ` +
          `peak over the run ${peakMib?.toFixed(1) ?? "n/a"} MiB`,
      );
    }
  }
} finally {
  for (const child of children.reverse()) await child.stop();
}
