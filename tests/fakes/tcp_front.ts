/**
 * A raw TCP front for a fake's Deno.serve server, so the fake can close a connection after
 * reading a request and before any byte of answer (which Deno.serve cannot). Each client
 * connection carries one request: the front adds `Connection: close` to the request head
 * (the server then answers with it and closes), pipes the bytes both ways, and closes the
 * client's connection instead of answering when the server's head carries
 * `x-fake-front: reset`.
 */

/** The response header by which the server asks the front to close unanswered. */
export const FRONT_CONTROL = "x-fake-front";

/** A running front. */
export interface TcpFront {
  port: number;
  /** Stops accepting, closes connections still waiting for a request, waits for the rest. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Starts a front on 127.0.0.1 for the server on `targetPort`. */
export function startTcpFront(targetPort: number): TcpFront {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const waiting = new Set<Deno.Conn>();
  const relays = new Set<Promise<void>>();
  const accepting = (async () => {
    for await (const client of listener) {
      waiting.add(client);
      const relayed = relay(client, targetPort, waiting);
      relays.add(relayed);
      relayed.finally(() => relays.delete(relayed));
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    async close() {
      listener.close();
      await accepting;
      for (const client of waiting) quietly(() => client.close());
      await Promise.all(relays);
    },
  };
}

/** Relays one request and its answer (or closes unanswered); never rejects. */
async function relay(
  client: Deno.Conn,
  targetPort: number,
  waiting: Set<Deno.Conn>,
): Promise<void> {
  let server: Deno.Conn | undefined;
  try {
    const request = await readHead(client);
    waiting.delete(client);
    if (!request) return;
    server = await Deno.connect({ hostname: "127.0.0.1", port: targetPort });
    await writeAll(server, closingHead(request.head));
    await writeAll(server, request.rest);
    const inner = server;
    // A client that goes away is passed on, so the server cancels the answer's body.
    pump(client, inner).finally(() => quietly(() => inner.closeWrite()));
    const answer = await readHead(server);
    if (!answer) return;
    if (new RegExp(`\r\n${FRONT_CONTROL}: reset\r\n`, "i").test(answer.head)) return;
    await writeAll(client, encoder.encode(answer.head));
    await writeAll(client, answer.rest);
    await pump(server, client);
  } catch {
    // Either side went away: close both.
  } finally {
    waiting.delete(client);
    quietly(() => client.close());
    if (server) quietly(() => server!.close());
  }
}

/** The request head with `Connection: close` in place of any Connection or Keep-Alive. */
function closingHead(head: string): Uint8Array {
  const lines = head.slice(0, -4).split("\r\n")
    .filter((line) => !/^(connection|keep-alive)\s*:/i.test(line));
  return encoder.encode(`${lines.join("\r\n")}\r\nConnection: close\r\n\r\n`);
}

/** Reads up to the end of a message head; undefined when the connection ends first. */
async function readHead(conn: Deno.Conn): Promise<{ head: string; rest: Uint8Array } | undefined> {
  let bytes = new Uint8Array(0);
  const buffer = new Uint8Array(16_384);
  for (;;) {
    const end = headEnd(bytes);
    if (end >= 0) return { head: decoder.decode(bytes.subarray(0, end)), rest: bytes.slice(end) };
    const count = await conn.read(buffer);
    if (count === null) return undefined;
    const joined = new Uint8Array(bytes.byteLength + count);
    joined.set(bytes);
    joined.set(buffer.subarray(0, count), bytes.byteLength);
    bytes = joined;
  }
}

/** The index just past the first CRLF CRLF, or -1. */
function headEnd(bytes: Uint8Array): number {
  for (let i = 3; i < bytes.byteLength; i++) {
    if (bytes[i] === 10 && bytes[i - 1] === 13 && bytes[i - 2] === 10 && bytes[i - 3] === 13) {
      return i + 1;
    }
  }
  return -1;
}

async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(65_536);
  try {
    for (let count = await from.read(buffer); count !== null; count = await from.read(buffer)) {
      await writeAll(to, buffer.subarray(0, count));
    }
  } catch {
    // Closed under us: the relay closes both sides.
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let written = 0; written < bytes.byteLength;) {
    written += await conn.write(bytes.subarray(written));
  }
}

function quietly(action: () => unknown): void {
  try {
    const result = action();
    if (result instanceof Promise) result.catch(() => {});
  } catch {
    // Already closed.
  }
}
