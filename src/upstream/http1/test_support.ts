/**
 * What the HTTP/1.1 client's tests share: a post, a client closed after its test, a TLS
 * upstream, a CONNECT proxy, and a wait that fails a test rather than hang it.
 */
import assert from "node:assert/strict";
import { createHttpClient, type HttpClient } from "./client.ts";
import { UpstreamFailure } from "../call.ts";
import { peerOf } from "../../../tests/fakes/scripted_upstream.ts";

export const post = (
  client: HttpClient,
  url: string,
  body = "{}",
  signal = new AbortController().signal,
) =>
  client.post({ url, headers: { "content-type": "application/json" }, body }, {
    signal,
    connectMs: 5_000,
  });

/** Runs `test` with a client, closing it (and its idle connections) afterwards. */
export async function withClient(
  test: (client: HttpClient) => Promise<void>,
  options: { caCerts?: string[]; env?: Record<string, string>; maxIdleMs?: number } = {},
) {
  const env = options.env ?? {};
  const client = createHttpClient({
    caCerts: options.caCerts,
    env: (name) => env[name],
    maxIdleMs: options.maxIdleMs,
  });
  try {
    await test(client);
  } finally {
    client.close();
  }
}

/** An https upstream with the test CA's certificate; its port, the CA, requests served, a stop. */
export async function tlsUpstream() {
  const fixtures = new URL("../../../tests/fixtures/tls/", import.meta.url);
  const read = (name: string) => Deno.readTextFile(new URL(name, fixtures));
  const [cert, key, ca] = await Promise.all([read("cert.pem"), read("key.pem"), read("ca.pem")]);
  const { promise: listening, resolve } = Promise.withResolvers<Deno.NetAddr>();
  const served = { count: 0 };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen: resolve },
    async (request) => {
      served.count++;
      return Response.json({ echoed: await request.json() });
    },
  );
  return { port: (await listening).port, ca, served, stop: () => server.shutdown() };
}

/**
 * A CONNECT proxy that tunnels to 127.0.0.1 and records each CONNECT head; `beforeAnswer`
 * runs between a CONNECT arriving and its answer.
 */
export function tunnellingProxy(beforeAnswer: () => Promise<void> = () => Promise.resolve()) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const open: Deno.Conn[] = [];
  const serving = (async () => {
    const tunnels: Promise<unknown>[] = [];
    for await (const client of listener) {
      open.push(client);
      const peer = peerOf(client, []);
      tunnels.push(
        (async () => {
          const request = await peer.request();
          if (!request) return;
          heads.push(request.head);
          await beforeAnswer();
          const port = Number(/^CONNECT [^ ]+:(\d+) /.exec(request.head)![1]);
          const target = await Deno.connect({ hostname: "127.0.0.1", port });
          open.push(target);
          try {
            await peer.write("HTTP/1.1 200 Connection established\r\n\r\n");
            await Promise.allSettled([
              client.readable.pipeTo(target.writable),
              target.readable.pipeTo(client.writable),
            ]);
          } finally {
            // A tunnel opened after close() (its client gone) must not outlive the proxy.
            try {
              target.close();
            } catch { /* closed by its pipe */ }
          }
        })().catch(() => {}),
      );
    }
    await Promise.all(tunnels);
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    heads,
    async close() {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch { /* already closed */ }
      }
      await serving;
    },
  };
}

/**
 * `promise`, or a failure once `ms` passed: a regression that leaves a request waiting
 * fails its test instead of hanging the suite (passing never depends on this timer).
 */
export async function settled<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Still waiting after ${ms} ms.`)), ms);
  });
  try {
    return await Promise.race([promise, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

/** Posts to `url` with a 50 ms connect timeout and asserts that it fails as a timeout. */
export async function assertConnectTimeout(client: HttpClient, url: string): Promise<void> {
  const posting = client.post({ url, headers: {}, body: "{}" }, {
    signal: new AbortController().signal,
    connectMs: 50,
  });
  const failure = await settled(posting).catch((error) => error);
  assert.ok(failure instanceof UpstreamFailure, String(failure));
  assert.equal(failure.kind, "timeout");
}
