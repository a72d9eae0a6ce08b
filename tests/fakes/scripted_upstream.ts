/**
 * A scripted upstream for the HTTP/1.1 client's tests: a raw TCP listener on 127.0.0.1
 * whose script writes exactly the bytes a test needs (keep-alive, closes, framing good
 * and broken, interim answers, silence), one script run per accepted connection.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One accepted connection of a scripted upstream. */
export interface Peer {
  /** The next request's head and body; undefined once the client closed the connection. */
  request(): Promise<{ head: string; body: string } | undefined>;
  /** The next request's head only, its body left unread; undefined once the client closed. */
  head(): Promise<string | undefined>;
  write(text: string | Uint8Array): Promise<void>;
  close(): void;
}

/** A raw TCP upstream running `script` for each connection (`index` counts from 0). */
export function scripted(script: (peer: Peer, index: number) => Promise<void>) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const peers: Deno.Conn[] = [];
  const requests: string[] = [];
  const serving = (async () => {
    const scripts: Promise<void>[] = [];
    for await (const conn of listener) {
      peers.push(conn);
      scripts.push(script(peerOf(conn, requests), peers.length - 1).catch(() => {}));
    }
    await Promise.all(scripts);
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/v1/chat/completions`,
    /** Connections accepted so far. */
    accepted: () => peers.length,
    /** Every request body received, in order. */
    requests,
    async close() {
      listener.close();
      for (const conn of peers) {
        try {
          conn.close();
        } catch { /* closed by its script */ }
      }
      await serving;
    },
  };
}

/** The Peer of a raw connection; request bodies received are pushed onto `requests`. */
export function peerOf(conn: Deno.Conn, requests: string[]): Peer {
  /** Bytes read and not yet taken: joined on demand, so a large body is copied once. */
  let pending = new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let buffered = 0;
  const more = async () => {
    const buffer = new Uint8Array(65_536);
    const count = await conn.read(buffer).catch(() => null);
    if (count === null) return false;
    chunks.push(buffer.subarray(0, count));
    buffered += count;
    return true;
  };
  const joined = () => {
    if (chunks.length > 0) {
      const all = new Uint8Array(buffered);
      all.set(pending);
      let at = pending.byteLength;
      for (const chunk of chunks) {
        all.set(chunk, at);
        at += chunk.byteLength;
      }
      pending = all;
      chunks.length = 0;
    }
    return pending;
  };
  const headEnd = async () => {
    let end: number;
    while ((end = decoder.decode(joined()).indexOf("\r\n\r\n")) < 0) {
      if (!(await more())) return undefined;
    }
    return end;
  };
  return {
    async head() {
      const end = await headEnd();
      return end === undefined ? undefined : decoder.decode(pending.subarray(0, end));
    },
    async request() {
      const end = await headEnd();
      if (end === undefined) return undefined;
      const head = decoder.decode(pending.subarray(0, end));
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      while (buffered < end + 4 + length) if (!(await more())) return undefined;
      const body = decoder.decode(joined().subarray(end + 4, end + 4 + length));
      pending = pending.slice(end + 4 + length);
      buffered = pending.byteLength;
      requests.push(body);
      return { head, body };
    },
    async write(data) {
      const bytes = typeof data === "string" ? encoder.encode(data) : data;
      let written = 0;
      while (written < bytes.byteLength) written += await conn.write(bytes.subarray(written));
    },
    close: () => conn.close(),
  };
}

/** An answer with a Content-Length. */
export const answer = (body: string, headers = "") =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${headers}Content-Length: ${
    encoder.encode(body).byteLength
  }\r\n\r\n${body}`;

/** Answers every request on a connection with `{"n":<request number on it>}`. */
export async function answerAll(peer: Peer) {
  for (let n = 1;; n++) {
    if (!(await peer.request())) return;
    await peer.write(answer(`{"n":${n}}`));
  }
}
