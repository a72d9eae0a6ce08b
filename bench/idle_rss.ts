/**
 * Idle RSS of `tollgate serve` as the README's quick start runs it: `deno task start`'s
 * runtime flags, `main.ts serve` on the checkout's config.example.toml (the echo channel, a
 * SQLite file) copied into a temp dir with a free port. Each run reads VmRSS (with its
 * anonymous and file-backed parts) after `--settle` seconds of idleness at each stage:
 *
 * - first start: a fresh database, which `serve` migrates and gives a first key;
 * - restart: the same database, a second process (what a gateway runs as, day to day);
 * - after one whole request to each entry point (chat, responses, messages; echo counts
 *   tokens, so the tokenizer's ranks are loaded);
 * - after the dashboard's sign-in page and its stylesheet.
 *
 * With `--base DIR` another checkout (e.g. `git worktree add /tmp/base 3d9d4de`) is measured
 * in the same run, the two taking turns run by run. Prints each stage's median (min-max)
 * in MiB. Run by hand: `deno run -A bench/idle_rss.ts [--runs 5] [--settle 2] [--base DIR]
 * [--json]`.
 */
import { parseArgs } from "node:util";
import { median } from "./measure.ts";
import { tollgateRuntimeFlags } from "./processes.ts";
import { clientRequest, PROTOCOLS } from "./protocols.ts";
import { table } from "./table.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    settle: { type: "string", default: "2" },
    base: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const runs = Number(values.runs);
const settleMs = Number(values.settle) * 1000;
const ROOT = new URL("..", import.meta.url);

/** The stages at which RSS is read, in order. */
export const STAGES = ["first start", "restart", "one request each", "dashboard page"] as const;
type Stage = typeof STAGES[number];

/** VmRSS and its anonymous and file-backed parts, in KiB. */
interface Rss {
  total: number;
  anon: number;
  file: number;
}

async function rssOf(pid: number): Promise<Rss> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);
  return { total: kib("VmRSS"), anon: kib("RssAnon"), file: kib("RssFile") };
}

/** A `tollgate serve` process of checkout `root`, once it printed where it listens. */
interface Serving {
  pid: number;
  url: string;
  /** The first key, on a fresh database. */
  key?: string;
  stop(): Promise<void>;
}

async function serve(root: URL, configPath: string, fresh: boolean): Promise<Serving> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      ...tollgateRuntimeFlags(undefined, root),
      "main.ts",
      "serve",
      "--config",
      configPath,
    ],
    cwd: root.pathname,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let url: string | undefined;
  const deadline = Date.now() + 60_000;
  // On a fresh database the listening line is followed by the first key and a curl line.
  while (Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`tollgate exited before it listened: ${text}`);
    text += value;
    url ??= /tollgate listening on (\S+)/.exec(text)?.[1];
    if (url && (!fresh || /Try it:\n/.test(text))) break;
  }
  if (!url) throw new Error(`tollgate did not listen in 60 s: ${text}`);
  // Keep draining stdout (the request log) so the process never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })().catch(() => {});
  return {
    pid: child.pid,
    url,
    key: /^\s+(sk-\S+)$/m.exec(text)?.[1],
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, settleMs));

async function expectOk(response: Response, what: string): Promise<void> {
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${what} answered ${response.status}: ${body}`);
}

/** One run on checkout `root`: every stage's RSS. */
async function measureRun(root: URL): Promise<Record<Stage, Rss>> {
  const dir = await Deno.makeTempDir({ prefix: "tollgate-idle-rss-" });
  try {
    const example = await Deno.readTextFile(new URL("config.example.toml", root));
    const configPath = `${dir}/config.toml`;
    await Deno.writeTextFile(
      configPath,
      example.replace(/^listen = "[^"]*"/m, 'listen = "127.0.0.1:0"'),
    );
    const first = await serve(root, configPath, true);
    await settle();
    const firstStart = await rssOf(first.pid);
    await first.stop();
    const key = first.key;
    if (!key) throw new Error("The first start printed no key.");

    const server = await serve(root, configPath, false);
    try {
      await settle();
      const restart = await rssOf(server.pid);
      for (const protocol of PROTOCOLS) {
        const request = clientRequest(protocol, { baseUrl: server.url, model: "echo", key }, false);
        const response = await fetch(request.url, {
          method: "POST",
          headers: request.headers,
          body: request.body,
        });
        await expectOk(response, protocol);
      }
      await settle();
      const afterRequests = await rssOf(server.pid);
      const page = await fetch(`${server.url}/admin`, { redirect: "follow" });
      const html = await page.text();
      const stylesheet = /href="(\/admin\/assets\/[^"]+\.css)"/.exec(html)?.[1];
      if (stylesheet) await expectOk(await fetch(`${server.url}${stylesheet}`), "the stylesheet");
      await settle();
      const afterPage = await rssOf(server.pid);
      return {
        "first start": firstStart,
        "restart": restart,
        "one request each": afterRequests,
        "dashboard page": afterPage,
      };
    } finally {
      await server.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const sides = [{ name: "this", root: ROOT }];
if (values.base) {
  sides.unshift({ name: "base", root: new URL(`file://${Deno.realPathSync(values.base)}/`) });
}
const results = sides.map(() => [] as Record<Stage, Rss>[]);
for (let run = 0; run < runs; run++) {
  console.error(`run ${run + 1}/${runs}`);
  const order = run % 2 === 0 ? sides.keys() : [...sides.keys()].reverse();
  for (const s of order) results[s]!.push(await measureRun(sides[s]!.root));
}

const mib = (kib: number) => (kib / 1024).toFixed(1);
/** `median (min-max)` of one part of a stage's RSS over the runs, in MiB. */
const spread = (samples: Record<Stage, Rss>[], stage: Stage, part: keyof Rss) => {
  const kib = samples.map((sample) => sample[stage][part]);
  return `${mib(median(kib))} (${mib(Math.min(...kib))}-${mib(Math.max(...kib))})`;
};
if (values.json) {
  console.log(JSON.stringify(Object.fromEntries(sides.map((side, s) => [side.name, results[s]]))));
} else {
  console.log(`idle RSS, MiB: median (min-max) of ${runs} runs, ${values.settle} s idle a stage`);
  console.log(table(
    ["stage", ...sides.flatMap((side) => [`${side.name} VmRSS`, `${side.name} anon`])],
    STAGES.map((stage) => [
      stage,
      ...results.flatMap((samples) => [
        spread(samples, stage, "total"),
        spread(samples, stage, "anon"),
      ]),
    ]),
  ));
}
