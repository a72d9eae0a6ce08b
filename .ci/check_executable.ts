/**
 * Checks the executable `deno task compile` built: it exists, is executable, is the
 * runtime it was built on plus a plausible embedded program, and holds every migration
 * byte for byte (text imports are embedded as they are).
 * Usage: deno run -R .ci/check_executable.ts EXECUTABLE RUNTIME
 */
import { filesUnder, ROOT } from "../tests/module_graph.ts";

const MiB = 1024 * 1024;
/** The embedded program is ~128 MiB today (npm packages, most of it); far less means parts are missing. */
const MIN_EMBEDDED = 32 * MiB;
/** Far more means something not meant for it was embedded (a database, a bench's output). */
const MAX_EMBEDDED = 512 * MiB;

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

if (problems.length > 0) {
  console.error(`Checking the executable failed:\n- ${problems.join("\n- ")}`);
  Deno.exit(1);
}
console.log(
  `${executable}: ${info.size} bytes (${(info.size / MiB).toFixed(1)} MiB), ` +
    `${
      (embedded / MiB).toFixed(1)
    } MiB beside its runtime; ${migrations.length} migrations embedded`,
);
