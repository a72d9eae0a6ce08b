/**
 * Checks the executable `deno task compile` built: it exists, is executable, is the
 * runtime it was built on plus an embedded program within its bounds, and holds every
 * migration and o200k's rank file byte for byte (text and bytes imports are embedded as
 * they are). Its program cannot be run here: deno standing in for the runtime runs as plain
 * deno (tests/compile_exclusions_test.ts runs main.ts on the npm files the build embeds).
 * Usage: deno run -R .ci/check_executable.ts EXECUTABLE RUNTIME
 */
import { filesUnder, ROOT } from "../tests/module_graph.ts";

const MiB = 1024 * 1024;
/** Less means parts are missing: zod, hono, kysely and o200k's rank file alone take more. */
const MIN_EMBEDDED = 8 * MiB;
/**
 * More means something not meant for it was embedded: a test-only package (the SDKs take tens
 * of MiB), a native addon, gpt-tokenizer's other encodings, a database, a bench's output.
 */
const MAX_EMBEDDED = 30 * MiB;
/** The token counter's rank file, a `bytes` import from gpt-tokenizer (as `deno install` lays it out). */
const RANKS = "node_modules/gpt-tokenizer/data/o200k_base.tiktoken";

/** Whether `needle` occurs in `haystack` (typed arrays' indexOf finds its first byte natively). */
function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  const last = haystack.length - needle.length;
  for (let at = haystack.indexOf(needle[0]!); at >= 0 && at <= last;) {
    let matched = 1;
    while (matched < needle.length && haystack[at + matched] === needle[matched]) matched++;
    if (matched === needle.length) return true;
    at = haystack.indexOf(needle[0]!, at + 1);
  }
  return false;
}

const [executable, runtime] = Deno.args;
if (!executable || !runtime) {
  console.error("Usage: deno run -R .ci/check_executable.ts EXECUTABLE RUNTIME");
  Deno.exit(2);
}

const problems: string[] = [];
const info = await Deno.stat(executable).catch(() => undefined);
if (!info?.isFile) {
  console.error(`Checking the executable failed: ${executable} was not built.`);
  Deno.exit(1);
}
if (((info.mode ?? 0) & 0o111) === 0) problems.push(`${executable} is not executable`);
const embedded = info.size - (await Deno.stat(runtime)).size;
if (embedded < MIN_EMBEDDED || embedded > MAX_EMBEDDED) {
  problems.push(
    `${executable} embeds ${(embedded / MiB).toFixed(1)} MiB beside its runtime, ` +
      `outside ${MIN_EMBEDDED / MiB}-${MAX_EMBEDDED / MiB} MiB`,
  );
}
const bytes = await Deno.readFile(executable);
const migrations = await filesUnder("migrations", ".sql");
for (const migration of migrations) {
  const sql = await Deno.readFile(new URL(migration, ROOT));
  if (!contains(bytes, sql)) problems.push(`${migration} is not in ${executable}`);
}
if (!contains(bytes, await Deno.readFile(new URL(RANKS, ROOT)))) {
  problems.push(`${RANKS} is not in ${executable}`);
}

if (problems.length > 0) {
  console.error(`Checking the executable failed:\n- ${problems.join("\n- ")}`);
  Deno.exit(1);
}
console.log(
  `${executable}: ${info.size} bytes (${(info.size / MiB).toFixed(1)} MiB), ` +
    `${
      (embedded / MiB).toFixed(1)
    } MiB beside its runtime; ${migrations.length} migrations and o200k's ranks embedded`,
);
