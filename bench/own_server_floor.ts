/**
 * The floor of a metering relay that serves its clients itself, on `Deno.listen`, rather
 * than through `Deno.serve`: it reads each POST's head and body, calls the upstream with
 * tollgate's HTTP/1.1 client and writes the upstream's chunks to the client's socket as
 * HTTP/1.1 chunks, one socket write each, or a whole answer in one write. No `Request`, `Response` or `ReadableStream`
 * is made, so neither is the runtime's stream resource (a 1,024-slot ring a stream, see
 * bench/README.md). What an idle stream costs this way is the question it answers; it
 * speaks only as much HTTP/1.1 as the bench's client sends.
 *
 * The `own-server` mode of stream_floor_proxy.ts (bench/idle_floor.ts, bench/stream_floor.ts).
 */
import { announce, NEVER, stdinClosed } from "./child.ts";
import { createHttpClient, type HttpClient } from "../src/upstream/http1/client.ts";
import { headEnd } from "../src/upstream/http1/head.ts";

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();
const STREAM_HEAD = ENCODER.encode(
  "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
);
const LAST_CHUNK = ENCODER.encode("0\r\n\r\n");

/** A client connection's unread bytes: requests follow each other on a kept-alive one. */
class ClientConnection {
  #buffer: Uint8Array = new Uint8Array(0);
  readonly #chunk = new Uint8Array(4096);
  constructor(readonly conn: Deno.Conn) {}

  /** The next request's body (its head read for Content-Length); undefined once it closed. */
  async nextBody(): Promise<Uint8Array | undefined> {
    for (;;) {
      const end = headEnd(this.#buffer);
      if (end >= 0) {
        const head = DECODER.decode(this.#buffer.subarray(0, end));
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        while (this.#buffer.length < end + length) if (!await this.#fill()) return undefined;
        const body = this.#buffer.slice(end, end + length);
        this.#buffer = this.#buffer.slice(end + length);
        return body;
      }
      if (!await this.#fill()) return undefined;
    }
  }

  async #fill(): Promise<boolean> {
    const count = await this.conn.read(this.#chunk);
    if (count === null) return false;
    const joined = new Uint8Array(this.#buffer.length + count);
    joined.set(this.#buffer);
    joined.set(this.#chunk.subarray(0, count), this.#buffer.length);
    this.#buffer = joined;
    return true;
  }

  async write(bytes: Uint8Array): Promise<void> {
    for (let done = 0; done < bytes.length;) done += await this.conn.write(bytes.subarray(done));
  }
}

/**
 * Relays a connection's requests in turn: a stream's chunks each written as one HTTP/1.1
 * chunk; a whole answer parsed (as the `http1` floors do) and written with its length.
 */
async function relay(client: ClientConnection, http: HttpClient, upstream: string) {
  for (let body = await client.nextBody(); body; body = await client.nextBody()) {
    const request = JSON.parse(DECODER.decode(body));
    const response = await http.post({
      url: `${upstream}/v1/chat/completions`,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    }, { signal: NEVER, connectMs: 10_000 });
    if (!request.stream) {
      const text = await response.text();
      JSON.parse(text);
      const answer = ENCODER.encode(text);
      const head = ENCODER.encode(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${answer.length}\r\n\r\n`,
      );
      const whole = new Uint8Array(head.length + answer.length);
      whole.set(head);
      whole.set(answer, head.length);
      await client.write(whole);
      continue;
    }
    await client.write(STREAM_HEAD);
    const reader = response.body!;
    for (let chunk = await reader.read(); chunk; chunk = await reader.read()) {
      DECODER.decode(chunk, { stream: true });
      const size = ENCODER.encode(`${chunk.length.toString(16)}\r\n`);
      const framed = new Uint8Array(size.length + chunk.length + 2);
      framed.set(size);
      framed.set(chunk, size.length);
      framed.set([0x0d, 0x0a], size.length + chunk.length);
      await client.write(framed);
    }
    await client.write(LAST_CHUNK);
  }
}

/** Serves the relay on 127.0.0.1 on a free port, announces its URL, and stops on stdin EOF. */
export async function serveOwnUntilStdinCloses(upstream: string): Promise<void> {
  const client = createHttpClient();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  announce({ url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}` });
  void (async () => {
    for await (const conn of listener) {
      // A client that leaves mid-stream fails its writes: that stream is simply over.
      relay(new ClientConnection(conn), client, upstream).catch(() => {}).finally(() => {
        try {
          conn.close();
        } catch { /* closed already */ }
      });
    }
  })();
  await stdinClosed();
  Deno.exit(0);
}
