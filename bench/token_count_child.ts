/**
 * One measurement of token_count.ts's bench, in a process of its own (run by it):
 * `admit COUNTER KIND BYTES [RUNS]` prints the CPU milliseconds of counting a chat prompt
 * of BYTES of KIND for admission (countInputTokens, as the context-window check does: its
 * first count, then the median of RUNS - 1 more, 10 unless given) and the tokens;
 * `memory COUNTER` prints the process's RSS before the counter loads and after it loaded
 * and counted once. COUNTER is
 * `after` (this checkout's) or a path to a `bpe.ts` of before (bench/token_count.ts
 * extracts main's from git), counting with gpt-tokenizer's o200k pattern as it did.
 */
import process from "node:process";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/esm/encodingParams/constants";
import { countInputTokens } from "../src/billing/estimate.ts";
import { type CountTokens, loadTokenCounter } from "../src/tokens/token_count.ts";
import { ordinaryTexts, pathologicalTexts } from "../tests/token_texts.ts";
import { protocolOf } from "../src/protocols/index.ts";

/** The counter of `which`: this checkout's, or an old bpe.ts's exact one. */
async function loadCounter(which: string): Promise<CountTokens> {
  if (which === "after") return await loadTokenCounter();
  const { BpeRanks, bpeCounter } = await import(new URL(`file://${which}`).href);
  const file = await Deno.readFile(
    new URL(import.meta.resolve("gpt-tokenizer/data/o200k_base.tiktoken")),
  );
  const count: (text: string) => number = bpeCounter(
    BpeRanks.parse(file),
    O200K_TOKEN_SPLIT_REGEX,
  );
  return Object.assign(count, { fit: () => 0 });
}

/** CPU milliseconds (user + system) that `run` takes. */
function cpuOf(run: () => unknown): number {
  const start = process.cpuUsage();
  run();
  const spent = process.cpuUsage(start);
  return (spent.user + spent.system) / 1000;
}

const [mode, which, kind, size, runs = "11"] = Deno.args;
if (mode === "admit") {
  const bytes = Number(size);
  const text = kind === "ordinary code"
    ? ordinaryTexts().code.repeat(Math.ceil(bytes / 900_000)).slice(0, bytes)
    : pathologicalTexts(bytes)[kind!]!;
  // As the gateway holds it: parsed from the client's JSON (a flat string).
  const body = JSON.parse(JSON.stringify({
    model: "m",
    messages: [{ role: "user", content: text }],
  }));
  const count = await loadCounter(which!);
  count("warm the loaded module up");
  let tokens = 0;
  const first = cpuOf(() => tokens = countInputTokens(protocolOf("chat"), body, count));
  const more = Array.from(
    { length: Number(runs) - 1 },
    () => cpuOf(() => countInputTokens(protocolOf("chat"), body, count)),
  ).sort((a, b) => a - b);
  console.log(JSON.stringify({ first, median: more[more.length >> 1] ?? first, tokens }));
} else if (mode === "memory") {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const before = Deno.memoryUsage().rss;
  const count = await loadCounter(which!);
  count("A sentence of a prompt, and a line of code: f(x) => x * 2;\n".repeat(2_000));
  gc();
  const after = Deno.memoryUsage().rss;
  console.log(JSON.stringify({ before: before / 1048576, after: after / 1048576 }));
} else {
  throw new Error(`Running the token count bench failed: no mode "${mode}".`);
}
