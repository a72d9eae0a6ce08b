/**
 * Where a server's CPU goes at concurrency 32, by thread, and how busy the machine is
 * meanwhile: the bare proxy and tollgate priced, loaded in turn window after window (the
 * host drifts), each window's CPU read from every thread of the process
 * (`/proc/<pid>/task`: the serving thread, V8's worker threads for garbage collection and
 * compilation, the runtime's others) and the machine's from `/proc/stat`. It answers
 * whether the serving thread or the machine bounds a run. Run by hand:
 * `deno run -A bench/threads.ts [--windows 4] [--seconds 3] [--concurrency 32]
 * [--v8-flags LIST]` (tollgate's V8 flags; deno.json's unless given, "none": V8's).
 */
import { parseArgs } from "node:util";
import { runLoad } from "./load.ts";
import { median } from "./measure.ts";
import { type ChildServer, startChild, statMillis, tollgateRuntimeFlags } from "./processes.ts";
import { type ClientRequest, clientRequest } from "./protocols.ts";

const { values } = parseArgs({
  options: {
    windows: { type: "string", default: "4" },
    seconds: { type: "string", default: "3" },
    concurrency: { type: "string", default: "32" },
    "v8-flags": { type: "string" },
  },
});
const windows = Number(values.windows);
const concurrency = Number(values.concurrency);
const durationMs = Number(values.seconds) * 1000;

/** CPU time in ms each thread of `pid` has run, by thread name (threads of one name summed). */
async function threadMillis(pid: number): Promise<Map<string, number>> {
  const millis = new Map<string, number>();
  for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
    const stat = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/stat`);
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    millis.set(name, (millis.get(name) ?? 0) + await statMillis(stat));
  }
  return millis;
}

/** The machine's CPU time so far: busy and total ticks over all cores. */
function machineTicks(): { busy: number; total: number } {
  const fields = Deno.readTextFileSync("/proc/stat").split("\n")[0]!.trim().split(/\s+/)
    .slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - fields[3]! - fields[4]!, total }; // idle, iowait
}

/** One window: req/s, µs of CPU a request by thread name, the machine's busy share. */
interface Window {
  requestsPerSecond: number;
  microsByThread: Map<string, number>;
  machineBusy: number;
}

async function window(server: ChildServer, request: ClientRequest): Promise<Window> {
  await runLoad({ ...request, stream: false, concurrency, durationMs: 500 });
  const threadsBefore = await threadMillis(server.pid);
  const machineBefore = machineTicks();
  const result = await runLoad({ ...request, stream: false, concurrency, durationMs });
  const threadsAfter = await threadMillis(server.pid);
  const machineAfter = machineTicks();
  const microsByThread = new Map<string, number>();
  for (const [name, millis] of threadsAfter) {
    microsByThread.set(name, ((millis - (threadsBefore.get(name) ?? 0)) * 1000) / result.requests);
  }
  return {
    requestsPerSecond: result.requestsPerSecond,
    microsByThread,
    machineBusy: (machineAfter.busy - machineBefore.busy) /
      (machineAfter.total - machineBefore.total),
  };
}

const fake = await startChild("fake upstream", "fake_upstream.ts", []);
const children: ChildServer[] = [fake];
try {
  const bare = await startChild("bare proxy", "bare_proxy.ts", [fake.ready.url]);
  children.push(bare);
  const tollgate = await startChild(
    "tollgate",
    "tollgate_server.ts",
    [fake.ready.url],
    tollgateRuntimeFlags(values["v8-flags"]),
  );
  children.push(tollgate);
  const targets = [
    {
      name: "bare proxy",
      server: bare,
      request: clientRequest("chat", { baseUrl: bare.ready.url, model: "bench" }, false),
    },
    {
      name: "tollgate priced",
      server: tollgate,
      request: clientRequest("chat", {
        baseUrl: tollgate.ready.url,
        model: "bench-priced",
        key: String(tollgate.ready.pricedKey),
      }, false),
    },
  ];
  for (const target of targets) {
    await runLoad({ ...target.request, stream: false, concurrency, durationMs: 2_000 });
  }
  const results = targets.map(() => [] as Window[]);
  for (let round = 1; round <= windows; round++) {
    console.error(`window ${round}/${windows}`);
    for (const [index, target] of targets.entries()) {
      results[index]!.push(await window(target.server, target.request));
    }
  }
  console.log(
    `concurrency ${concurrency}, ${windows} windows of ${values.seconds} s each, in turn`,
  );
  for (const [index, target] of targets.entries()) {
    const rows = results[index]!;
    const names = [...new Set(rows.flatMap((row) => [...row.microsByThread.keys()]))];
    const perThread = names
      .map((name) => ({
        name,
        micros: median(rows.map((row) => row.microsByThread.get(name) ?? 0)),
      }))
      .filter((thread) => thread.micros >= 0.5)
      .sort((a, b) => b.micros - a.micros);
    const each = rows.map((row) => row.requestsPerSecond.toFixed(0)).join(", ");
    const busy = median(rows.map((row) => row.machineBusy * 100));
    console.log(`${target.name}: ${each} req/s; the machine ${busy.toFixed(0)}% busy (medians)`);
    for (const thread of perThread) {
      console.log(
        `  ${thread.name.padEnd(16)} ${thread.micros.toFixed(1).padStart(6)} µs a request`,
      );
    }
  }
} finally {
  await Promise.all(children.map((child) => child.stop()));
}
