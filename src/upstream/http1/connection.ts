/**
 * One HTTP/1.1 connection to an upstream: its socket (TCP, or TLS over it), a read
 * buffer, and, while it waits in the pool, a read that notices the upstream closing it.
 * That idle read is the first read of the next response when the connection is reused,
 * so an idle connection costs one pending read and never loses a byte.
 */
import { headEnd, MalformedResponse, MAX_HEAD_BYTES, parseResponseHead } from "./head.ts";
import type { ResponseHead } from "./head.ts";

/** Bytes read at a time: SSE events are small, and an open stream keeps its buffer. */
export const READ_BUFFER_BYTES = 4_096;

/** Where a connection goes: the host and port it connects to, TLS, and a proxy's tunnel. */
export interface Origin {
  /** `https://host:port` (with the proxy's, when through one): the pool's key. */
  key: string;
  /** Connected to (the proxy's, when through one; IPv6 literals without brackets). */
  hostname: string;
  port: number;
  /** The name TLS verifies, for an https origin. */
  tls?: string;
  /** Through a proxy, first a CONNECT to this `host:port` (with the proxy's credentials). */
  tunnel?: { authority: string; authorization?: string };
}

/** The upstream ended the connection before an answer was complete. */
export class ConnectionClosed extends Error {
  constructor(what: string) {
    super(`The upstream closed the connection ${what}.`);
    this.name = "ConnectionClosed";
  }
}

/** An open connection and its unread bytes (`buffer[start, end)`). */
export interface Connection {
  readonly origin: Origin;
  /** When it last went idle (performance.now()). */
  idleSince: number;
  buffer: Uint8Array;
  start: number;
  end: number;
  /** Whether it failed or was closed: it is never used again. */
  closed: boolean;
  /** Writes all of `bytes`. */
  write(bytes: Uint8Array): Promise<void>;
  /** Reads more bytes into the buffer (after those unread); false at the end of the stream. */
  fill(): Promise<boolean>;
  /** Reads from the socket straight into `into` (after the head: nothing is buffered ahead). */
  readInto(into: Uint8Array): Promise<number | null>;
  /** Reads the head of the next response (skipping 1xx), leaving what follows it unread. */
  readHead(): Promise<ResponseHead>;
  /** Starts the idle read of a connection going back to the pool; `onLost` if it ends. */
  watchIdle(onLost: () => void): void;
  /** Whether it is in the pool (its idle read's result then means the upstream left). */
  idle: boolean;
  close(): void;
}

/** Opens a connection; `signal` gives up on connecting. */
export async function openConnection(
  origin: Origin,
  signal: AbortSignal,
  caCerts?: string[],
): Promise<Connection> {
  const tcp = await Deno.connect({ hostname: origin.hostname, port: origin.port, signal });
  tcp.setNoDelay(true);
  try {
    if (origin.tunnel) await connectTunnel(connectionOver(tcp, origin), origin.tunnel);
    const socket: Deno.Conn = origin.tls
      ? await Deno.startTls(tcp, { hostname: origin.tls, caCerts })
      : tcp;
    return connectionOver(socket, origin);
  } catch (error) {
    tcp.close();
    throw error;
  }
}

/** Asks the proxy on `proxy` for a tunnel; resolves once it answered 2xx. */
async function connectTunnel(
  proxy: Connection,
  { authority, authorization }: { authority: string; authorization?: string },
): Promise<void> {
  const credentials = authorization ? `proxy-authorization: ${authorization}\r\n` : "";
  await proxy.write(
    new TextEncoder().encode(
      `CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n${credentials}\r\n`,
    ),
  );
  const head = await proxy.readHead();
  if (head.status < 200 || head.status > 299) {
    throw new Error(`The proxy refused a tunnel to ${authority}: HTTP ${head.status}.`);
  }
  // TLS speaks first: a proxy has nothing to send before it.
  if (proxy.start !== proxy.end) throw new MalformedResponse("the proxy sent data too early");
}

/** A connection over an open socket. */
function connectionOver(socket: Deno.Conn, origin: Origin): Connection {
  // The idle read in flight, whose result is the next response's first bytes.
  let pending: Promise<number | null> | undefined;
  const read = (into: Uint8Array): Promise<number | null> => {
    if (!pending) return socket.read(into);
    const first = pending;
    pending = undefined;
    return first;
  };
  const connection: Connection = {
    origin,
    idleSince: 0,
    buffer: new Uint8Array(READ_BUFFER_BYTES),
    start: 0,
    end: 0,
    closed: false,
    idle: false,
    async write(bytes) {
      let written = 0;
      while (written < bytes.byteLength) written += await socket.write(bytes.subarray(written));
    },
    async fill() {
      let { buffer } = connection;
      if (connection.start === connection.end) {
        connection.start = connection.end = 0;
      } else if (connection.end === buffer.byteLength) {
        // Unread bytes at the end of a full buffer: move them to its start, or grow it.
        const unread = connection.end - connection.start;
        if (unread * 2 > buffer.byteLength) {
          if (buffer.byteLength >= MAX_HEAD_BYTES) {
            throw new MalformedResponse("its head is too large");
          }
          buffer = new Uint8Array(buffer.byteLength * 2);
        }
        buffer.set(connection.buffer.subarray(connection.start, connection.end));
        connection.buffer = buffer;
        connection.start = 0;
        connection.end = unread;
      }
      const count = await read(buffer.subarray(connection.end));
      if (count === null) return false;
      connection.end += count;
      return true;
    },
    readInto: (into) => socket.read(into),
    async readHead() {
      for (;;) {
        let scanned = 0;
        let length: number;
        const unread = () => connection.buffer.subarray(connection.start, connection.end);
        while ((length = headEnd(unread(), scanned)) < 0) {
          scanned = connection.end - connection.start;
          if (!(await connection.fill())) {
            throw new ConnectionClosed(
              scanned > 0 ? "in the middle of its answer" : "before answering",
            );
          }
        }
        const head = parseResponseHead(unread(), length);
        connection.start += length;
        // 1xx answers are interim: the real one follows on the same connection.
        if (head.status >= 200) {
          shrink(connection);
          return head;
        }
      }
    },
    watchIdle(onLost) {
      connection.idle = true;
      connection.idleSince = performance.now();
      const watching = socket.read(connection.buffer);
      pending = watching;
      // Registered before any reader's: while idle, any result means the connection is gone.
      watching.then((count) => {
        if (connection.idle) {
          if (count !== null) connection.end = count;
          onLost();
        }
      }, () => {
        if (connection.idle) onLost();
      });
    },
    close() {
      if (connection.closed) return;
      connection.closed = true;
      connection.idle = false;
      try {
        socket.close();
      } catch {
        // Already closed by the runtime.
      }
    },
  };
  return connection;
}

/** Back to the usual buffer once a large head was read, keeping what followed it. */
function shrink(connection: Connection): void {
  const unread = connection.end - connection.start;
  if (connection.buffer.byteLength === READ_BUFFER_BYTES || unread > READ_BUFFER_BYTES) return;
  const buffer = new Uint8Array(READ_BUFFER_BYTES);
  buffer.set(connection.buffer.subarray(connection.start, connection.end));
  connection.buffer = buffer;
  connection.start = 0;
  connection.end = unread;
}
