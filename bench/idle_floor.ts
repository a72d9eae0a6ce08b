/**
 * What an idle stream costs in memory on this runtime: N streams whose upstream sends
 * one chunk and then nothing, held open through each minimal proxy of
 * stream_floor_proxy.ts (the native pipe, a default reader, 4 KiB BYOB reads, tollgate's
 * HTTP/1.1 client, that client behind a server on `Deno.listen` instead of `Deno.serve`)
 * and through tollgate priced, each a fresh process; prints its idle RSS, peak RSS and
 * (peak - idle) per stream. Run by hand (`ulimit -n` must allow 2 x N + 256):
 * `deno run -A bench/idle_floor.ts [--streams 2000] [--seconds 3]`.
 */
import { parseArgs } from "node:util";
import { runIdleStreams } from "./idle_streams.ts";
import { type ChildServer, startChild, tollgateRuntimeFlags } from "./processes.ts";
import { clientRequest } from "./protocols.ts";

const { values } = parseArgs({
  options: {
    streams: { type: "string", default: "2000" },
    seconds: { type: "string", default: "3" },
  },
});
const settings = { idleStreams: Number(values.streams), idleSeconds: Number(values.seconds) };

/** A fresh proxy in front of the fake's idle streams, with its key and model. */
interface Subject {
  name: string;
  start(fakeUrl: string): Promise<ChildServer>;
  key?: (child: ChildServer) => string;
  model: string;
}

const SUBJECTS: Subject[] = [
  ...(["native", "pull", "byob", "http1", "own-server"] as const).map((mode) => ({
    name: `floor ${mode}`,
    start: (fake: string) => startChild(mode, "stream_floor_proxy.ts", [`${fake}/idle`, mode]),
    model: "bench",
  })),
  {
    name: "tollgate priced",
    start: (fake: string) =>
      startChild(
        "tollgate",
        "tollgate_server.ts",
        [fake, "--keepalive-ms", "1000"],
        tollgateRuntimeFlags(),
      ),
    key: (child) => String(child.ready.pricedKey),
    model: "bench-idle",
  },
];

const fake = await startChild("fake upstream", "fake_upstream.ts", []);
try {
  console.log(`${settings.idleStreams} idle streams held ${settings.idleSeconds} s`);
  for (const subject of SUBJECTS) {
    const child = await subject.start(fake.ready.url);
    try {
      const key = subject.key?.(child);
      const result = await runIdleStreams(
        child.pid,
        (stream) =>
          clientRequest("chat", { baseUrl: child.ready.url, key, model: subject.model }, stream),
        settings,
        () => {},
      );
      const mib = (kib: number | undefined) => ((kib ?? NaN) / 1024).toFixed(1);
      console.log(
        `${subject.name.padEnd(16)} idle ${mib(result.idleRssKib).padStart(6)} MiB  ` +
          `peak ${mib(result.peakRssKib).padStart(6)} MiB  ` +
          `${(result.perStreamKib ?? NaN).toFixed(1).padStart(6)} KiB/stream  ` +
          `${result.errors} errors${result.firstError ? ` (${result.firstError})` : ""}`,
      );
    } finally {
      await child.stop();
    }
  }
} finally {
  await fake.stop();
}
