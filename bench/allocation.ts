/**
 * What a request allocates, by V8's own count: tollgate under the bench's c32 load with
 * `--trace-gc-nvp`, the bytes its scavenges report allocated, copied (survived one) and
 * promoted, over the requests served meanwhile. Unlike time, these counts barely move with
 * the host (±1% run to run), so a change too small for `ab.ts` (the host moves a c32 A/B by
 * ±4%) shows here. Run by hand:
 * `deno run -A bench/allocation.ts [--seconds 10] [--model bench-priced] [--concurrency 32]
 *   [--base DIR]`: `--base` measures another checkout too (e.g. `git worktree add /tmp/base
 * HEAD~1`), one after the other.
 */
import { parseArgs } from "node:util";
import { runLoad } from "./load.ts";
import { startChild, tollgateRuntimeFlags } from "./processes.ts";
import { clientRequest } from "./protocols.ts";

/** One scavenge's figures, in bytes. */
export interface Scavenge {
  allocated: number;
  survived: number;
  promoted: number;
}

/** The figures of a `--trace-gc-nvp` line if it reports a scavenge, else undefined. */
export function scavengeOf(line: string): Scavenge | undefined {
  const at = line.indexOf("GC: {");
  if (at < 0) return undefined;
  let figures: Record<string, unknown>;
  try {
    figures = JSON.parse(line.slice(at + 4));
  } catch {
    return undefined; // a line another write cut into
  }
  if (figures.gc !== "s") return undefined;
  return {
    allocated: Number(figures.allocated ?? 0),
    survived: Number(figures.new_space_survived ?? 0),
    promoted: Number(figures.promoted ?? 0),
  };
}

/** The ready line a bench server prints, found in `line` (V8's trace may share it). */
export function readyOf(line: string): Record<string, unknown> | undefined {
  const at = line.indexOf('{"url"');
  return at < 0 ? undefined : JSON.parse(line.slice(at));
}

/** A checkout's tollgate measured: its scavenges' sums over the requests of the load. */
async function measureCheckout(root: URL, upstream: string, options: {
  model: string;
  seconds: number;
  concurrency: number;
}): Promise<string> {
  const flags = tollgateRuntimeFlags(undefined, root).map((flag) =>
    flag.startsWith("--v8-flags=") ? `${flag},--trace-gc-nvp` : flag
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...flags, new URL("bench/tollgate_server.ts", root).pathname, upstream],
    cwd: root.pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const sums = { scavenges: 0, allocated: 0, survived: 0, promoted: 0 };
  let counting = false;
  let announce: (ready: Record<string, unknown> | undefined) => void = () => {};
  const ready = new Promise<Record<string, unknown> | undefined>((resolve) => announce = resolve);
  // Every line is read to the end: V8 writes its trace to the same pipe as the ready line.
  const reading = (async () => {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += chunk.value;
      for (let end = rest.indexOf("\n"); end >= 0; end = rest.indexOf("\n")) {
        const line = rest.slice(0, end);
        rest = rest.slice(end + 1);
        const found = readyOf(line);
        if (found) announce(found);
        const scavenge = counting ? scavengeOf(line) : undefined;
        if (!scavenge) continue;
        sums.scavenges++;
        sums.allocated += scavenge.allocated;
        sums.survived += scavenge.survived;
        sums.promoted += scavenge.promoted;
      }
    }
    announce(undefined);
  })();
  const server = await ready;
  if (!server) throw new Error(`The tollgate of ${root.pathname} exited before it was ready.`);
  try {
    const request = clientRequest("chat", {
      baseUrl: String(server.url),
      model: options.model,
      key: String(options.model === "bench-priced" ? server.pricedKey : server.unpricedKey),
    }, false);
    const load = (seconds: number) =>
      runLoad({
        ...request,
        stream: false,
        concurrency: options.concurrency,
        durationMs: seconds * 1000,
      });
    await load(Math.min(6, options.seconds));
    counting = true;
    const { requests, errors } = await load(options.seconds);
    counting = false;
    const per = (bytes: number) => (bytes / requests).toFixed(0).padStart(6);
    return `${root.pathname.padEnd(24)} ${requests} requests (${errors} errors), ` +
      `${sums.scavenges} scavenges; a request: allocated ${per(sums.allocated)} B, ` +
      `survived ${per(sums.survived)} B, promoted ${per(sums.promoted)} B`;
  } finally {
    await child.stdin.close();
    await child.status;
    await reading;
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "10" },
      model: { type: "string", default: "bench-priced" },
      concurrency: { type: "string", default: "32" },
      base: { type: "string" },
    },
  });
  const options = {
    model: values.model,
    seconds: Number(values.seconds),
    concurrency: Number(values.concurrency),
  };
  const roots = [new URL("..", import.meta.url)];
  if (values.base) roots.push(new URL(`file://${Deno.realPathSync(values.base)}/`));
  const fake = await startChild("fake upstream", "fake_upstream.ts", []);
  try {
    console.log(`${options.model}, concurrency ${options.concurrency}, ${options.seconds} s`);
    for (const root of roots) console.log(await measureCheckout(root, fake.ready.url, options));
  } finally {
    await fake.stop();
  }
}
