/**
 * Several tollgate checkouts against one another in one run, for a store mechanism's A/B:
 * each variant is a directory holding a whole checkout (e.g. a `git worktree` of main
 * with one mechanism switched off), served as bench/tollgate_server.ts serves it (a SQLite
 * file, the runtime flags of that checkout's `deno task start`), behind one fake upstream.
 * The priced target (chat, `bench-priced`: a real hold and settlement a request; or with
 * `--entry responses`, a kept stored response too) is loaded by wrk at each concurrency
 * in passes: each pass measures one slice of every variant, forward then backward in
 * turn, each after a second of its own unmeasured load. Every figure is the median
 * slice's; each ratio to the first variant (the base) is the median of the passes'
 * ratios, +/- twice their standard error. Name a variant twice (`base=DIR base2=DIR`) for
 * an A/A control: its ratios are the run's noise.
 *
 *   deno run -A bench/store_variants.ts base=DIR other=DIR [...] [--concurrency 32,1]
 *     [--passes 8] [--seconds 2] [--warmup 2] [--entry chat|responses]
 */
import { parseArgs } from "node:util";
import { combineSlices, measure, pairedRatio, passOrder } from "./measure.ts";
import { type ChildServer, startChild, tollgateRuntimeFlags } from "./processes.ts";
import { clientRequest, type Protocol } from "./protocols.ts";
import { ms, opt, table } from "./table.ts";
import { checkWrk, runWrk } from "./wrk.ts";
import type { PhaseResult } from "./results.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    concurrency: { type: "string", default: "32,1" },
    passes: { type: "string", default: "8" },
    seconds: { type: "string", default: "2" },
    warmup: { type: "string", default: "2" },
    entry: { type: "string", default: "chat" },
  },
});
const VARIANTS = positionals.map((arg) => {
  const [name, dir] = arg.split("=");
  if (!name || !dir) throw new Error(`A variant is NAME=DIR, got ${JSON.stringify(arg)}.`);
  return { name, root: new URL(`file://${Deno.realPathSync(dir)}/`) };
});
if (VARIANTS.length < 2) throw new Error("Name at least two variants: base=DIR other=DIR.");
const PASSES = Number(values.passes);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const ENTRY = values.entry as Protocol;

const progress = (line: string) => console.error(`store_variants: ${line}`);

/** `of` over `to` for each slice (a pass's two slices), as "0.97 ± 0.03". */
function ratio(of: readonly number[], to: readonly number[]): string {
  const { value, spread } = pairedRatio(of, to);
  return `${value.toFixed(3)} ± ${spread.toFixed(3)}`;
}

/** Each variant's slices at `concurrency`, measured in passes. */
async function measureAt(
  servers: ChildServer[],
  concurrency: number,
): Promise<PhaseResult[][]> {
  const phases = servers.map((server) => ({
    ...clientRequest(ENTRY, {
      baseUrl: server.ready.url,
      model: "bench-priced",
      key: String(server.ready.pricedKey),
    }, false),
    stream: false,
    concurrency,
  }));
  for (const [index, phase] of phases.entries()) {
    progress(`c${concurrency}: warming up ${VARIANTS[index]!.name}`);
    await runWrk({ ...phase, durationMs: WARMUP * 1000 });
  }
  const slices: PhaseResult[][] = servers.map(() => []);
  for (let pass = 0; pass < PASSES; pass++) {
    progress(`c${concurrency}: pass ${pass + 1}/${PASSES} (load ${await loadAverage()})`);
    for (const index of passOrder(servers.map((_, index) => index), pass)) {
      const phase = phases[index]!;
      // A second of its own load first (wrk runs whole seconds), unmeasured.
      await runWrk({ ...phase, durationMs: 1000 });
      slices[index]!.push(
        await measure(servers[index]!.pid, { ...phase, durationMs: SECONDS * 1000 }, runWrk),
      );
    }
  }
  return slices;
}

/** The machine's 1-minute load average, from /proc. */
async function loadAverage(): Promise<string> {
  try {
    return (await Deno.readTextFile("/proc/loadavg")).split(" ")[0]!;
  } catch {
    return "n/a";
  }
}

function report(concurrency: number, slices: PhaseResult[][]): void {
  const [base] = slices;
  console.log(
    `${ENTRY}, bench-priced, c${concurrency}: ${PASSES} passes of ${SECONDS} s slices (wrk)`,
  );
  console.log(table(
    [
      "variant",
      "req/s",
      "p50 ms",
      "p99 ms",
      "CPU µs/req",
      "req/s / base",
      "p50 / base",
      "p99 / base",
    ],
    slices.map((taken, index) => {
      const result = combineSlices(taken);
      const rates = taken.map((slice) => slice.requestsPerSecond);
      const p50s = taken.map((slice) => slice.latency.p50);
      const p99s = taken.map((slice) => slice.latency.p99);
      const first = index === 0;
      return [
        VARIANTS[index]!.name,
        result.requestsPerSecond.toFixed(0) + (result.errors ? ` (${result.errors} errors)` : ""),
        ms(result.latency.p50),
        ms(result.latency.p99),
        opt(result.cpuMicrosPerRequest),
        first ? "" : ratio(rates, base!.map((slice) => slice.requestsPerSecond)),
        first ? "" : ratio(p50s, base!.map((slice) => slice.latency.p50)),
        first ? "" : ratio(p99s, base!.map((slice) => slice.latency.p99)),
      ];
    }),
  ));
  console.log("");
}

await checkWrk();
progress(`load average at start: ${await loadAverage()}`);
const fake = await startChild("fake upstream", "fake_upstream.ts", []);
const servers: ChildServer[] = [];
try {
  for (const { name, root } of VARIANTS) {
    servers.push(
      await startChild(
        name,
        "tollgate_server.ts",
        [fake.ready.url],
        tollgateRuntimeFlags(undefined, root),
        root,
      ),
    );
  }
  for (const concurrency of values.concurrency.split(",").map(Number)) {
    report(concurrency, await measureAt(servers, concurrency));
  }
  progress(`load average at end: ${await loadAverage()}`);
} finally {
  for (const server of servers.reverse()) await server.stop();
  await fake.stop();
}
