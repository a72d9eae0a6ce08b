/**
 * tollgate's load and latency bench (`deno task bench`, see bench/README.md).
 *
 * Starts a fake upstream, a bare Hono + fetch pass-through proxy and tollgate, each in
 * its own process, then drives load at them from this process, part by part (`--phases`):
 * the four targets (non-stream chat at concurrency 1 and C, N-chunk streams at 1 and S);
 * streams through tollgate in each direction (client protocol -> channel protocol); what
 * the request log and metrics, and never-refusing group limits, cost in throughput;
 * concurrent slow streams with RSS against fresh proxies; and idle streams held open
 * through a fresh tollgate. Prints tables and the ratios the performance targets are
 * stated in (`--json`: JSON).
 */
import {
  COST_TARGETS,
  costRatios,
  costResults,
  type CostRun,
  observabilityTargets,
  runCosts,
} from "./costs.ts";
import { type DirectionResult, runDirections } from "./directions.ts";
import { IDLE_KEEPALIVE_MS, idleRatios, type IdleResult, runIdleStreams } from "./idle_streams.ts";
import { memoryRatios, type MemoryResult, METERING_FLOOR, runMemory } from "./memory.ts";
import { type ChildServer, machine, startChild, tollgateRuntimeFlags } from "./processes.ts";
import { directionRatios, printReport, ratios } from "./report.ts";
import { type PhaseGroup, type Settings, settingsFrom } from "./settings.ts";
import { requestOf, runTargets, type Target } from "./targets.ts";
import { checkWrk } from "./wrk.ts";
import { type Ratio, type TargetResults } from "./results.ts";

type Progress = (line: string) => void;

/** Starts the children `start` returns, runs `body`, and stops them even if it throws. */
async function withChildren<T>(
  start: () => Promise<ChildServer>[],
  body: (children: ChildServer[]) => Promise<T>,
): Promise<T> {
  const starting = start();
  const settled = await Promise.allSettled(starting);
  const children = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  try {
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    return await body(children);
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
}

/** The parts on the long-lived tollgate: targets, directions, observability and limits. */
async function runMainParts(fake: ChildServer, settings: Settings, progress: Progress) {
  const wants = (group: PhaseGroup) => settings.phases.includes(group);
  const empty = { results: [] as TargetResults[], directions: [] as DirectionResult[] };
  if (!["targets", "directions", "observability", "limits"].some((g) => wants(g as PhaseGroup))) {
    return { ...empty, costRuns: [] as CostRun[] };
  }
  progress("starting tollgate" + (wants("targets") ? " and the bare proxy" : ""));
  const upstream = fake.ready.url;
  return await withChildren(() => [
    startChild(
      "tollgate",
      "tollgate_server.ts",
      [upstream],
      tollgateRuntimeFlags(settings.tollgateV8Flags),
    ),
    ...(wants("targets") ? [startChild("bare proxy", "bare_proxy.ts", [upstream])] : []),
  ], async (children) => {
    const [tollgate, ...others] = children as [ChildServer, ...ChildServer[]];
    const proxy = others.find((child) => child.name === "bare proxy");
    const key = (name: string) => String(tollgate.ready[name]);
    const priced: Target = {
      name: COST_TARGETS.priced,
      url: tollgate.ready.url,
      key: key("pricedKey"),
      model: "bench-priced",
      server: tollgate,
    };
    let results: TargetResults[] = [];
    if (proxy) {
      results = await runTargets(
        [
          { name: "direct", url: upstream, model: "bench", server: fake },
          { name: "bare proxy", url: proxy.ready.url, model: "bench", server: proxy },
          {
            name: "tollgate unpriced",
            url: tollgate.ready.url,
            key: key("unpricedKey"),
            model: "bench-unpriced",
            server: tollgate,
          },
          priced,
        ],
        settings,
        progress,
      );
    }
    const directions = wants("directions")
      ? await runDirections(tollgate, key("unpricedKey"), settings, progress)
      : [];
    // Every cost target sets its config first, so that none runs with what the last one left.
    const [observed, quiet] = observabilityTargets(priced);
    const costTargets: Target[] = [
      observed,
      ...(wants("observability") ? [quiet] : []),
      ...(wants("limits")
        ? [{ ...observed, name: COST_TARGETS.limited, key: key("limitedKey") }]
        : []),
    ];
    const costRuns = costTargets.length > 1 ? await runCosts(costTargets, settings, progress) : [];
    return { results, directions, costRuns };
  });
}

/**
 * Concurrent slow streams against a fresh bare proxy, a fresh metering floor (a relay
 * that reads each chunk through tollgate's own HTTP/1.1 client and nothing more, as any
 * gateway that meters must: the floor of tollgate's design for the targets) and a fresh
 * tollgate priced.
 */
function runMemoryPart(fake: ChildServer, settings: Settings, progress: Progress) {
  progress("starting a fresh bare proxy, metering floor and tollgate for the slow streams");
  const slow = `${fake.ready.url}/slow`;
  return withChildren(() => [
    startChild("slow bare proxy", "bare_proxy.ts", [slow]),
    startChild("slow metering floor", "stream_floor_proxy.ts", [slow]),
    startChild(
      "slow tollgate",
      "tollgate_server.ts",
      [fake.ready.url],
      tollgateRuntimeFlags(settings.tollgateV8Flags),
    ),
  ], ([proxy, floor, tollgate]) =>
    runMemory(
      [
        { name: "bare proxy", url: proxy!.ready.url, model: "bench", server: proxy! },
        { name: METERING_FLOOR, url: floor!.ready.url, model: "bench", server: floor! },
        {
          name: COST_TARGETS.priced,
          url: tollgate!.ready.url,
          key: String(tollgate!.ready.pricedKey),
          model: "bench-slow",
          server: tollgate!,
        },
      ],
      settings,
      progress,
    ));
}

/** Idle streams through a fresh tollgate priced with a short keep-alive. */
function runIdlePart(fake: ChildServer, settings: Settings, progress: Progress) {
  progress("starting a fresh tollgate for the idle streams");
  return withChildren(() => [
    startChild("idle tollgate", "tollgate_server.ts", [
      fake.ready.url,
      "--keepalive-ms",
      String(IDLE_KEEPALIVE_MS),
    ], tollgateRuntimeFlags(settings.tollgateV8Flags)),
  ], ([tollgate]) => {
    const target: Target = {
      name: "idle tollgate",
      url: tollgate!.ready.url,
      key: String(tollgate!.ready.pricedKey),
      model: "bench-idle",
      server: tollgate!,
    };
    return runIdleStreams(
      tollgate!.pid,
      (stream) => requestOf(target, stream),
      settings,
      progress,
    );
  });
}

async function main(): Promise<void> {
  const settings = settingsFrom(Deno.args);
  const progress: Progress = (line) => console.error(`bench: ${line}`);
  const wants = (group: PhaseGroup) => settings.phases.includes(group);
  const wholeAnswers = wants("targets") || wants("observability") || wants("limits");
  if (settings.load === "wrk" && wholeAnswers) await checkWrk();
  progress("starting the fake upstream");
  const { json: _, ...recorded } = settings;
  const report = await withChildren(() => [
    startChild("fake upstream", "fake_upstream.ts", [
      String(settings.chunks),
      String(settings.slowChunks),
      String(settings.slowDelayMs),
    ]),
  ], async ([fake]) => {
    const { results, directions, costRuns } = await runMainParts(fake!, settings, progress);
    const memory: MemoryResult[] = wants("memory")
      ? await runMemoryPart(fake!, settings, progress)
      : [];
    const idle: IdleResult | undefined = wants("idle")
      ? await runIdlePart(fake!, settings, progress)
      : undefined;
    const costs = costResults(costRuns);
    const summary: Ratio[] = [
      ...(results.length > 0 ? ratios(results) : []),
      ...directionRatios(directions, settings.chunks),
      ...costRatios(costs),
      ...memoryRatios(memory, "bare proxy", COST_TARGETS.priced),
      ...idleRatios(idle),
    ];
    return {
      date: new Date().toISOString(),
      machine: await machine(),
      deno: Deno.version.deno,
      settings: recorded,
      results,
      directions,
      costRuns,
      costs,
      memory,
      idle,
      idleKeepaliveMs: IDLE_KEEPALIVE_MS,
      ratios: summary,
    };
  });
  if (settings.json) console.log(JSON.stringify(report, null, 2));
  else printReport(report);
}

if (import.meta.main) {
  try {
    await main();
  } catch (error) {
    console.error(`bench: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
