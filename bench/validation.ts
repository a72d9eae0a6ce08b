/**
 * How long validating each request body of src/protocols/request_safety_cases.ts (deep
 * nesting, 200,000 keys, 8 MB of numbers, 100,000 and ~640,000 messages) holds the serving
 * thread, against the issue's bound of 50 ms of CPU for any body up to max_body_bytes; beside
 * it, the JSON.parse that precedes validation, for scale. Validation is synchronous, so the
 * time it holds the thread is its main-thread CPU (read as elapsed time: the process's CPU
 * clock would also count V8's background collector threads). Each figure is the median and
 * the worst of N runs after one warm-up, each on a freshly parsed body, validated twice:
 * the first call also pays what the parse left to the collector (finishing the sweep of a
 * large heap, 10-60 ms after an 8 MB parse, due whatever runs next), the second is the
 * validation alone. Run by hand:
 * `deno run -A --v8-flags=--expose-gc bench/validation.ts [--runs 15]` (with `--expose-gc`
 * each parse's garbage is collected before validating, which makes the first call steadier).
 */
import { parseArgs } from "node:util";
import { GatewayError } from "../src/errors.ts";
import { protocolOf } from "../src/protocols/index.ts";
import { parseCountTokensRequest } from "../src/protocols/messages/index.ts";
import { hostileBodies, type HostileBody } from "../src/protocols/request_safety_cases.ts";
import { ms, table } from "./table.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "15" } } });
const runs = Number(values.runs);
/** V8's collector, when the bench runs with `--v8-flags=--expose-gc`. */
const collect = (globalThis as { gc?: () => void }).gc;

/** Milliseconds the (synchronous) `fn` held this thread. */
function heldMs(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

function validate({ protocol }: HostileBody, body: unknown): string {
  try {
    if (protocol === "count_tokens") parseCountTokensRequest(body);
    else protocolOf(protocol).parseRequest(body);
    return "pass";
  } catch (error) {
    if (error instanceof GatewayError) return `${error.status} ${error.param ?? "body"}`;
    throw error;
  }
}

/** The median and the largest of `samples`. */
function spread(samples: number[]): [number, number] {
  const sorted = [...samples].sort((a, b) => a - b);
  return [sorted[Math.floor(sorted.length / 2)]!, sorted.at(-1)!];
}

const rows: string[][] = [];
for (const hostile of hostileBodies()) {
  const parseSamples: number[] = [];
  const firstSamples: number[] = [];
  const validateSamples: number[] = [];
  let answer = "";
  for (let run = 0; run <= runs; run++) {
    let body: unknown;
    const parse = heldMs(() => body = JSON.parse(hostile.text));
    collect?.();
    const first = heldMs(() => answer = validate(hostile, body));
    const check = heldMs(() => answer = validate(hostile, body));
    if (run === 0) continue; // warm-up: zod compiles each schema on its first use
    parseSamples.push(parse);
    firstSamples.push(first);
    validateSamples.push(check);
  }
  const [validateMedian, validateWorst] = spread(validateSamples);
  const [parseMedian] = spread(parseSamples);
  const [firstMedian, firstWorst] = spread(firstSamples);
  rows.push([
    hostile.name,
    (hostile.text.length / 1024 / 1024).toFixed(2),
    answer,
    ms(validateMedian),
    ms(validateWorst),
    `${ms(firstMedian)} / ${ms(firstWorst)}`,
    ms(parseMedian),
  ]);
}
const gc = collect
  ? "each parse's garbage collected first"
  : "garbage not isolated: no --expose-gc";
console.log(`Validating entry-point request bodies, ms over ${runs} runs (${gc}):\n`);
console.log(table(
  ["body", "MiB", "answer", "validate p50", "max", "first call p50 / max", "JSON.parse p50"],
  rows,
));
