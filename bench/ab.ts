/**
 * Tollgate against itself at another commit, for a change too small for the host's
 * run-to-run noise: the fake upstream, the bare proxy, tollgate from this checkout and
 * tollgate from `--base` (another checkout, e.g. `git worktree add /tmp/base HEAD~1`),
 * each loaded in turn round after round (the tollgates swapping places), so that the
 * host's drift hits all alike. Prints
 * each one's median added p50, req/s and server CPU per request, and its ratios to the
 * bare proxy. Run by hand:
 * `deno run -A bench/ab.ts --base DIR [--rounds 5] [--seconds 3] [--concurrency 1]
 * [--v8-flags LIST] [--base-v8-flags LIST] [--env NAME=VALUE] [--base-env NAME=VALUE]`:
 * each side runs with its checkout's deno.json flags, or these V8 flags ("none": V8's
 * defaults), and with these environment variables (each flag may be repeated); `--base .`
 * with V8 flags or variables on one side compares the same code run two ways, e.g.
 * `--base . --env BENCH_BUDGETS=1` what budgets cost (`--base .` alone: an A/A control).
 * Last, this side over the base, each the median of the rounds' ratios ± twice their
 * standard error.
 */
import { parseArgs } from "node:util";
import { runLoad } from "./load.ts";
import { combineSlices, measure, median, pairedRatio } from "./measure.ts";
import { type ChildServer, startChild, tollgateRuntimeFlags } from "./processes.ts";
import { type ClientRequest, clientRequest } from "./protocols.ts";
import type { PhaseResult } from "./results.ts";

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    rounds: { type: "string", default: "5" },
    seconds: { type: "string", default: "3" },
    concurrency: { type: "string", default: "1" },
    "v8-flags": { type: "string" },
    "base-v8-flags": { type: "string" },
    env: { type: "string", multiple: true, default: [] },
    "base-env": { type: "string", multiple: true, default: [] },
  },
});
if (!values.base) {
  throw new Error(
    "Usage: deno run -A bench/ab.ts --base DIR [--rounds N] [--seconds S] [--concurrency N]",
  );
}
const base = new URL(`file://${Deno.realPathSync(values.base)}/`);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);

/** `NAME=VALUE` flags as an environment. */
function environment(pairs: string[]): Record<string, string> {
  return Object.fromEntries(pairs.map((pair) => {
    const at = pair.indexOf("=");
    if (at < 1) throw new Error(`--env and --base-env take NAME=VALUE, not "${pair}".`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }));
}
const env = environment(values.env);
const baseEnv = environment(values["base-env"]);

const fake = await startChild("fake upstream", "fake_upstream.ts", []);
const children: ChildServer[] = [fake];
try {
  const upstream = fake.ready.url;
  const tollgate = (
    name: string,
    v8Flags: string | undefined,
    root: URL | undefined,
    variables: Record<string, string>,
  ) =>
    startChild(
      name,
      "tollgate_server.ts",
      [upstream],
      tollgateRuntimeFlags(v8Flags, root),
      root,
      variables,
    );
  const bare = await startChild("bare proxy", "bare_proxy.ts", [upstream]);
  const mine = await tollgate("tollgate", values["v8-flags"], undefined, env);
  const theirs = await tollgate("tollgate base", values["base-v8-flags"], base, baseEnv);
  children.push(bare, mine, theirs);
  const priced = (child: ChildServer) =>
    clientRequest("chat", {
      baseUrl: child.ready.url,
      model: "bench-priced",
      key: String(child.ready.pricedKey),
    }, false);
  const targets: { name: string; server: ChildServer; request: ClientRequest }[] = [
    {
      name: "bare proxy",
      server: bare,
      request: clientRequest("chat", { baseUrl: bare.ready.url, model: "bench" }, false),
    },
    { name: "tollgate base", server: theirs, request: priced(theirs) },
    { name: "tollgate", server: mine, request: priced(mine) },
  ];
  const direct = clientRequest("chat", { baseUrl: upstream, model: "bench" }, false);
  const load = (request: ClientRequest, durationMs: number) =>
    runLoad({ ...request, stream: false, concurrency, durationMs });
  for (const target of targets) await load(target.request, 2_000);

  const added = targets.map(() => [] as number[]);
  const slices = targets.map(() => [] as PhaseResult[]);
  for (let round = 1; round <= rounds; round++) {
    console.error(`round ${round}/${rounds}`);
    const floor = (await load(direct, 1_000)).latency.p50;
    // The two tollgates swap places every round: neither always follows the bare proxy.
    const order = round % 2 === 1 ? [0, 1, 2] : [0, 2, 1];
    for (const index of order) {
      const target = targets[index]!;
      await load(target.request, 500);
      const slice = await measure(target.server.pid, {
        ...target.request,
        stream: false,
        concurrency,
        durationMs: Number(values.seconds) * 1000,
      });
      slices[index]!.push(slice);
      added[index]!.push(slice.latency.p50 - floor);
    }
  }
  const bareAdded = median(added[0]!);
  const bareRate = combineSlices(slices[0]!).requestsPerSecond;
  const sides = (variables: string[]) => variables.length ? ` (${variables.join(" ")})` : "";
  console.log(
    `concurrency ${concurrency}, ${rounds} rounds of ${values.seconds} s (medians); ` +
      `tollgate${sides(values.env)}, tollgate base ${values.base}${sides(values["base-env"])}`,
  );
  for (const [index, target] of targets.entries()) {
    const result = combineSlices(slices[index]!);
    console.log(
      `${target.name.padEnd(14)} added p50 ${median(added[index]!).toFixed(3)} ms ` +
        `(${(median(added[index]!) / bareAdded).toFixed(2)}x)  ` +
        `${result.requestsPerSecond.toFixed(0)} req/s ` +
        `(${(result.requestsPerSecond / bareRate).toFixed(2)}x)  ` +
        `${result.cpuMicrosPerRequest?.toFixed(0) ?? "n/a"} µs CPU/request`,
    );
  }
  const ratio = (figure: (index: number) => number[]) => {
    const { value, spread } = pairedRatio(figure(2), figure(1));
    return `${value.toFixed(3)} ± ${spread.toFixed(3)}`;
  };
  const cpu = (index: number) => slices[index]!.map((slice) => slice.cpuMicrosPerRequest ?? NaN);
  console.log(
    `tollgate / base  added p50 ${ratio((index) => added[index]!)}  ` +
      `req/s ${ratio((index) => slices[index]!.map((slice) => slice.requestsPerSecond))}  ` +
      `CPU/request ${ratio(cpu)}`,
  );
} finally {
  for (const child of children.reverse()) await child.stop();
}
