/**
 * Profiles tollgate under the bench's load: starts the fake upstream and tollgate (with
 * `--cpu-prof`) as children, runs a non-stream and a stream phase, and prints the top
 * self-time functions of the resulting V8 profile. Run by hand:
 * `deno run -A bench/profile.ts [--seconds 8] [--model bench-priced] [--dir /tmp/prof]
 *   [--stream] [--concurrency N] [--entry chat|responses|messages] [--limited]` (default 32 for whole
 * answers, 8 for streams). `--entry` is the client's protocol (chat unless given); with
 * `--model bench-<protocol>` it profiles one direction, e.g. `--entry messages --model
 * bench-chat --stream` for a messages client on a chat channel. `--limited` calls a priced
 * model with the funded account's key in group `limited` (never-refusing rpm, tpm and
 * concurrency: what the limiter costs).
 */
import { parseArgs } from "node:util";
import { runLoad } from "./load.ts";
import { startChild, tollgateRuntimeFlags } from "./processes.ts";
import { summarizeProfile } from "./profile_summary.ts";
import { clientRequest, endMarker, type Protocol, PROTOCOLS } from "./protocols.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "8" },
    model: { type: "string", default: "bench-priced" },
    dir: { type: "string", default: "/tmp/tollgate-prof" },
    stream: { type: "boolean", default: false },
    concurrency: { type: "string" },
    entry: { type: "string", default: "chat" },
    limited: { type: "boolean", default: false },
  },
});
const client = values.entry as Protocol;
if (!PROTOCOLS.includes(client)) {
  throw new Error(`Profiling failed: --entry is "${client}", not one of ${PROTOCOLS.join(", ")}.`);
}
const durationMs = Number(values.seconds) * 1000;
await Deno.mkdir(values.dir, { recursive: true });
for await (const entry of Deno.readDir(values.dir)) {
  await Deno.remove(`${values.dir}/${entry.name}`);
}

const fake = await startChild("fake upstream", "fake_upstream.ts", []);
const tollgate = await startChild("tollgate", "tollgate_server.ts", [fake.ready.url], [
  ...tollgateRuntimeFlags(),
  "--cpu-prof",
  `--cpu-prof-dir=${values.dir}`,
]);
const key = String(
  values.limited
    ? tollgate.ready.limitedKey
    : values.model === "bench-priced"
    ? tollgate.ready.pricedKey
    : tollgate.ready.unpricedKey,
);
const result = await runLoad({
  ...clientRequest(
    client,
    { baseUrl: tollgate.ready.url, model: values.model, key },
    values.stream,
  ),
  stream: values.stream,
  endMarker: endMarker(client),
  concurrency: Number(values.concurrency ?? (values.stream ? 8 : 32)),
  durationMs,
});
console.error(
  `${result.requests} requests, ${result.errors} errors, ${result.requestsPerSecond.toFixed(0)}/s`,
);
await tollgate.stop();
await fake.stop();
for await (const entry of Deno.readDir(values.dir)) {
  if (entry.name.endsWith(".cpuprofile")) {
    console.log(
      summarizeProfile(JSON.parse(await Deno.readTextFile(`${values.dir}/${entry.name}`))),
    );
  }
}
