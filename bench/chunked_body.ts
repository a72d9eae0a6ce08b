/**
 * A JSON body of 256 KiB sent in 1-byte chunks (issue 41), to tollgate and to the plain Hono
 * app on the same `Deno.serve` (tests/fakes/plain_hono.ts), with Hono's `bodyLimit` in front
 * of it (8 MiB, tollgate's default `max_body_bytes`) and without: how long each takes to
 * answer, and the CPU time its process spends. The client writes the whole chunked body at
 * once, as fast as the socket takes it, and reads the answer. Each server is a process of its
 * own (tollgate with `deno task start`'s flags, relaying to the fake upstream); the runs go
 * to the servers in turn, forward then backward, so that drift of the shared machine falls on
 * all alike; the figures are medians, with the fastest and slowest run.
 *
 *   deno run -A bench/chunked_body.ts [--runs N] [--kib N]
 */
import { parseArgs } from "node:util";
import { rawConnect } from "../tests/raw_http.ts";
import { median, passOrder } from "./measure.ts";
import { type ChildServer, cpuMillis, startChild, tollgateRuntimeFlags } from "./processes.ts";
import { table } from "./table.ts";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "6" }, kib: { type: "string", default: "256" } },
});
const RUNS = Number(values.runs);
const BODY_BYTES = Number(values.kib) * 1024;
/** tollgate's default `[server] max_body_bytes`, the plain app's `bodyLimit` too. */
const MAX_BYTES = 8_388_608;

/** One server under test and the request it is sent. */
interface Target {
  name: string;
  server: ChildServer;
  path: string;
  headers: string;
}

/** The chat body of `bytes` bytes, in 1-byte chunks, with its last chunk. */
function oneByteChunks(model: string, bytes: number): string {
  const shell = JSON.stringify({ model, messages: [{ role: "user", content: "" }] });
  const body = shell.replace('"content":""', `"content":"${"x".repeat(bytes - shell.length)}"`);
  return Array.from(body, (char) => `1\r\n${char}\r\n`).join("") + "0\r\n\r\n";
}

/** Sends the body to `target` once: ms to the whole answer, and the server's CPU ms. */
async function run(target: Target, chunks: string): Promise<{ wallMs: number; cpuMs: number }> {
  const client = await rawConnect(target.server.ready.url, 600_000);
  try {
    const cpuBefore = await cpuMillis(target.server.pid) ?? Number.NaN;
    const start = performance.now();
    await client.send(
      `POST ${target.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${target.headers}` +
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    client.sendAll(chunks);
    const answer = await client.answer();
    const wallMs = performance.now() - start;
    const cpuMs = (await cpuMillis(target.server.pid) ?? Number.NaN) - cpuBefore;
    if (answer?.status !== "HTTP/1.1 200 OK") {
      throw new Error(`${target.name} answered ${answer?.status}: ${answer?.body.slice(0, 300)}`);
    }
    return { wallMs, cpuMs };
  } finally {
    client.close();
  }
}

const children: ChildServer[] = [];
try {
  const fake = await startChild("fake upstream", "fake_upstream.ts", []);
  children.push(fake);
  const tollgate = await startChild(
    "tollgate",
    "tollgate_server.ts",
    [fake.ready.url],
    tollgateRuntimeFlags(),
  );
  children.push(tollgate);
  // The flag tollgate runs with: without it the runtime warns when a request's signal is read.
  const plain = (name: string, args: string[]) =>
    startChild(name, "plain_hono_server.ts", args, ["--unstable-no-legacy-abort"]);
  const limited = await plain("plain Hono", [String(MAX_BYTES)]);
  children.push(limited);
  const unlimited = await plain("plain Hono, no limit", []);
  children.push(unlimited);
  const targets: Target[] = [
    {
      name: "tollgate",
      server: tollgate,
      path: "/v1/chat/completions",
      headers: `Authorization: Bearer ${tollgate.ready.unpricedKey}\r\n`,
    },
    { name: "Hono + bodyLimit, c.req.json()", server: limited, path: "/", headers: "" },
    { name: "Hono, c.req.json()", server: unlimited, path: "/", headers: "" },
  ];
  const chunks = oneByteChunks("bench-unpriced", BODY_BYTES);
  // A warm-up run each: the first request of a process compiles what it runs.
  for (const target of targets) await run(target, chunks);
  const samples = targets.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
  for (let pass = 0; pass < RUNS; pass++) {
    console.error(`run ${pass + 1}/${RUNS}`);
    for (const target of passOrder(targets, pass)) {
      const { wallMs, cpuMs } = await run(target, chunks);
      const sample = samples[targets.indexOf(target)]!;
      sample.wall.push(wallMs);
      sample.cpu.push(cpuMs);
    }
  }
  const spread = (values: number[]) =>
    `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}-${
      Math.max(...values).toFixed(0)
    })`;
  console.log(
    `${values.kib} KiB in 1-byte chunks (${(chunks.length / 1024 / 1024).toFixed(2)} MiB on ` +
      `the wire), ${RUNS} runs each: median (fastest-slowest)`,
  );
  console.log(table(
    ["server", "answered in ms", "server CPU ms"],
    targets.map((target, index) => [
      target.name,
      spread(samples[index]!.wall),
      spread(samples[index]!.cpu),
    ]),
  ));
} finally {
  for (const child of children.reverse()) await child.stop();
}
