/**
 * The CPU it takes to count a long prompt for admission (the context-window check's
 * count), before and after token counting was bounded: main's exact counter (its bpe.ts
 * at `--before`, read from git) against this checkout's, for 1 MB of every kind that is
 * hard for a BPE counter and of ordinary code, each count in a fresh process with the
 * runtime flags tollgate ships with. A count of before that passes `--timeout` seconds is
 * stopped and reported as more than that, with its 64 KB figure scaled by the square of
 * the size (the merge's curve). Also: how o200k's split pattern itself scales (2 MB
 * against 1 MB of each kind), and the memory the counter takes when it loads.
 *
 *   deno run -A bench/token_count.ts [--before REF] [--bytes N] [--timeout S] [--kinds a,b]
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/esm/encodingParams/constants";
import { tollgateRuntimeFlags } from "./processes.ts";
import { table } from "./table.ts";
import { pathologicalTexts } from "../tests/token_texts.ts";

/** main's last commit before counting was bounded. */
const BEFORE = "eba18c1";

const ROOT = new URL("..", import.meta.url);
const CHILD = new URL("token_count_child.ts", import.meta.url).pathname;

/** What the child prints for `admit`. */
interface Admission {
  first: number;
  median: number;
  tokens: number;
}

/** Runs the child with `args`; undefined when it passes `timeoutMs`. */
async function child<T>(
  args: string[],
  timeoutMs: number,
  flags: string[],
): Promise<T | undefined> {
  const running = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...flags, CHILD, ...args],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const timer = setTimeout(() => running.kill("SIGKILL"), timeoutMs);
  try {
    const output = await running.output();
    if (!output.success) return undefined;
    return JSON.parse(new TextDecoder().decode(output.stdout)) as T;
  } finally {
    clearTimeout(timer);
  }
}

/** The bpe.ts of `ref`, written to a temp file that the child imports. */
async function beforeCounter(ref: string): Promise<string> {
  const shown = await new Deno.Command("git", {
    args: ["show", `${ref}:src/protocols/bpe.ts`],
    cwd: ROOT.pathname,
    stdout: "piped",
  }).output();
  if (!shown.success) throw new Error(`Reading bpe.ts at ${ref} failed: git show did not find it.`);
  const dir = await Deno.makeTempDir({ prefix: "tollgate_bench_bpe_" });
  await Deno.writeFile(`${dir}/bpe.ts`, shown.stdout);
  return `${dir}/bpe.ts`;
}

/** CPU nanoseconds a character of o200k's pattern over the first `chars` of `text`. */
function patternCost(text: string, chars: number): number {
  const sample: string = JSON.parse(JSON.stringify(text.slice(0, chars)));
  const start = process.cpuUsage();
  for (const _piece of sample.matchAll(O200K_TOKEN_SPLIT_REGEX));
  const spent = process.cpuUsage(start);
  return ((spent.user + spent.system) * 1000) / sample.length;
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    before: { type: "string", default: BEFORE },
    bytes: { type: "string", default: "1000000" },
    timeout: { type: "string", default: "20" },
    kinds: { type: "string" },
  },
});
const bytes = Number(values.bytes);
const timeoutMs = Number(values.timeout) * 1000;
const flags = tollgateRuntimeFlags();
const texts = pathologicalTexts(bytes);
const kinds = values.kinds?.split(",") ?? [...Object.keys(texts), "ordinary code"];
const before = await beforeCounter(values.before);
const cell = (figure: number | undefined) => figure === undefined ? "n/a" : figure.toFixed(1);

const rows: string[][] = [];
for (const kind of kinds) {
  const after = await child<Admission>(["admit", "after", kind, String(bytes)], 60_000, flags);
  let old = await child<Admission>(["admit", before, kind, String(bytes)], timeoutMs, flags);
  let oldCell = old ? `${cell(old.median)}` : `> ${values.timeout} s`;
  if (!old) {
    old = await child<Admission>(["admit", before, kind, "65536", "1"], timeoutMs, flags);
    const scaled = old ? (old.median * (bytes / 65536) ** 2) / 1000 : undefined;
    oldCell += scaled === undefined ? "" : ` (~${scaled.toFixed(0)} s)`;
  }
  rows.push([
    kind,
    oldCell,
    cell(after?.first),
    cell(after?.median),
    after ? String(after.tokens) : "n/a",
  ]);
  console.error(`${kind}: done`);
}
console.log(`CPU ms to count a ${bytes.toLocaleString("en")}-byte chat prompt for admission\n`);
console.log(table(["kind", "before", "after, first", "after", "tokens after"], rows));

console.log("\no200k's split pattern alone, CPU ns a character at 1 MB and at 2 MB\n");
const patternRows = Object.entries(pathologicalTexts(2 << 20)).map(([kind, text]) => {
  patternCost(text, 1 << 16); // compiled and warm
  const small = patternCost(text, text.length / 2);
  const large = patternCost(text, text.length);
  return [kind, small.toFixed(0), large.toFixed(0), (large / small).toFixed(2)];
});
console.log(table(["kind", "1 MB", "2 MB", "ratio"], patternRows));

console.log("\nRSS (MiB) of a fresh process before and after the counter loads and counts once\n");
const gcFlags = flags.map((flag) => flag.startsWith("--v8-flags=") ? `${flag},--expose-gc` : flag);
const memoryRows: string[][] = [];
for (const [name, which] of [["before", before], ["after", "after"]] as const) {
  const memory = await child<{ before: number; after: number }>(["memory", which], 60_000, gcFlags);
  memoryRows.push([
    name,
    cell(memory?.before),
    cell(memory?.after),
    memory ? cell(memory.after - memory.before) : "n/a",
  ]);
}
console.log(table(["counter", "before load", "after", "grew"], memoryRows));
