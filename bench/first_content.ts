/**
 * What committing a stream at its first content costs a healthy stream (issue 40): the
 * client's time to first content (the first body chunk holding one of the fake's content
 * chunks) through tollgate from this checkout and from `--base` (another checkout, e.g.
 * `git worktree add /tmp/base main`), each protocol passed through, taking turns request
 * by request so that the host's drift hits both alike. The fake upstream writes its
 * preamble and its content at once, so what is measured is the gateway's own work.
 * Run by hand:
 * `deno run -A bench/first_content.ts --base DIR [--requests 2000] [--concurrency 1]`.
 */
import { parseArgs } from "node:util";
import { percentiles } from "./load.ts";
import { type ChildServer, startChild, tollgateRuntimeFlags } from "./processes.ts";
import {
  type ClientRequest,
  clientRequest,
  type Protocol,
  protocolModel,
  PROTOCOLS,
  relayedChunks,
} from "./protocols.ts";

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    requests: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "1" },
  },
});
if (!values.base) {
  throw new Error(
    "Usage: deno run -A bench/first_content.ts --base DIR [--requests N] [--concurrency N]",
  );
}
const base = new URL(`file://${Deno.realPathSync(values.base)}/`);
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
const DECODER = new TextDecoder();

/** Milliseconds from sending `request` to the first chunk holding content. */
async function timeToFirstContent(protocol: Protocol, request: ClientRequest): Promise<number> {
  const sent = performance.now();
  const response = await fetch(request.url, {
    method: "POST",
    headers: request.headers,
    body: request.body,
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  let text = "";
  let at = 0;
  for await (const chunk of response.body!) {
    text += DECODER.decode(chunk, { stream: true });
    if (at === 0 && relayedChunks(protocol, text) > 0) at = performance.now() - sent;
  }
  if (at === 0) throw new Error("the stream held no content");
  return at;
}

const fake = await startChild("fake upstream", "fake_upstream.ts", []);
const children: ChildServer[] = [fake];
try {
  const upstream = fake.ready.url;
  const mine = await startChild(
    "tollgate",
    "tollgate_server.ts",
    [upstream],
    tollgateRuntimeFlags(),
  );
  const theirs = await startChild(
    "tollgate base",
    "tollgate_server.ts",
    [upstream],
    tollgateRuntimeFlags(undefined, base),
    base,
  );
  children.push(mine, theirs);
  const sides = [{ name: "base", server: theirs }, { name: "this", server: mine }];
  console.log(`time to first content, ms, ${requests} streams a side, concurrency ${concurrency}`);
  console.log("protocol   side   p50     mean    p99");
  for (const protocol of PROTOCOLS) {
    const requestOf = (server: ChildServer) =>
      clientRequest(protocol, {
        baseUrl: server.ready.url,
        model: protocolModel(protocol),
        key: String(server.ready.unpricedKey),
      }, true);
    const times = sides.map(() => [] as number[]);
    // Warm-up, then turns: each worker sends one stream to each side in turn.
    for (const side of sides) {
      for (let i = 0; i < 200; i++) await timeToFirstContent(protocol, requestOf(side.server));
    }
    const worker = async (offset: number) => {
      for (let i = 0; i < requests / concurrency; i++) {
        for (let turn = 0; turn < sides.length; turn++) {
          const index = (i + offset + turn) % sides.length;
          times[index]!.push(
            await timeToFirstContent(protocol, requestOf(sides[index]!.server)),
          );
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
    for (const [index, side] of sides.entries()) {
      const { p50, mean, p99 } = percentiles(times[index]!);
      console.log(
        `${protocol.padEnd(10)} ${side.name.padEnd(6)} ${p50.toFixed(3)}  ${mean.toFixed(3)}  ${
          p99.toFixed(3)
        }`,
      );
    }
  }
} finally {
  for (const child of children.reverse()) await child.stop();
}
