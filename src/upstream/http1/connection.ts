/**
 * One HTTP/1.1 connection to an upstream: its socket (TCP, or TLS over it), a read
 * buffer, and, while it waits in the pool, a read that notices the upstream closing it.
 * That idle read is the first read of the next response when the connection is reused,
 * so an idle connection costs one pending read and never loses a byte.
 */
import { headEnd, MalformedResponse, parseResponseHead } from "./head.ts";
import type { ResponseHead } from "./head.ts";
import { DEFAULT_ANSWER_LIMITS } from "./limits.ts";
import { makeRoom, type ReadBuffer, shrinkTo } from "./read_buffer.ts";

/** Bytes read at a time: SSE events are small, and an open stream keeps its buffer. */
export const READ_BUFFER_BYTES = 4_096;
/**
 * Bytes read at a time once a read filled the buffer: the upstream is ahead (a burst, or
 * a busy gateway), and larger reads carry what waits in fewer reads, and a stream in
 * fewer writes to its client. A stream that trickles never fills the small buffer and keeps
 * it; a connection going back to the pool gets it back.
 */
export const BURST_READ_BYTES = 16_384;

/** Where a connection goes: the host and port it connects to, TLS, and a proxy's tunnel. */
export interface Origin {
  /** `https://host:port` (with the proxy's, when through one): the pool's key. */
  key: string;
  /** Connected to (the proxy's, when through one; IPv6 literals without brackets). */
  hostname: string;
  port: number;
  /** The name TLS verifies, for an https origin. */
  tls?: string;
  /** Through a proxy, first a CONNECT to this `host:port`, with the proxy's credentials line. */
  tunnel?: { authority: string; credentials: string };
}

/** The upstream ended the connection before an answer was complete. */
export class ConnectionClosed extends Error {
  constructor(what: string) {
    super(`The upstream closed the connection ${what}.`);
    this.name = "ConnectionClosed";
  }
}

/**
 * Opens a connection: TCP, the proxy's tunnel, the TLS handshake; `signal` gives up on
 * any of them (and closes the socket).
 */
export async function openConnection(
  origin: Origin,
  signal: AbortSignal,
  caCerts?: string[],
): Promise<Connection> {
  const tcp = await Deno.connect({ hostname: origin.hostname, port: origin.port, signal });
  tcp.setNoDelay(true);
  let socket: Deno.Conn = tcp;
  // Past the TCP connect only closing the socket ends a wait (a proxy or a TLS server that
  // never answers): left open, it would wait, and stay open, for as long as the peer does.
  const giveUp = () => closeQuietly(socket);
  signal.addEventListener("abort", giveUp, { once: true });
  try {
    signal.throwIfAborted();
    if (origin.tunnel) await connectTunnel(new Connection(tcp, origin), origin.tunnel);
    if (origin.tls) {
      const tls = await Deno.startTls(tcp, { hostname: origin.tls, caCerts });
      socket = tls;
      signal.throwIfAborted();
      // Deno would shake hands at the first write, out of the connect timeout's reach.
      await tls.handshake();
    }
    signal.throwIfAborted();
    return new Connection(socket, origin);
  } catch (error) {
    closeQuietly(socket);
    throw error;
  } finally {
    signal.removeEventListener("abort", giveUp);
  }
}

/** The refusal of a head over `max_answer_head_bytes`: the answer is broken. */
function headTooLarge(maxHeadBytes: number): MalformedResponse {
  return new MalformedResponse(
    `its head is larger than server.max_answer_head_bytes (${maxHeadBytes} bytes)`,
  );
}

/** Closes a socket that may be closed already (or handed over to TLS). */
export function closeQuietly(socket: Deno.Conn): void {
  try {
    socket.close();
  } catch {
    // Already closed.
  }
}

/** Asks the proxy on `proxy` for a tunnel; resolves once it answered 2xx. */
async function connectTunnel(
  proxy: Connection,
  { authority, credentials }: { authority: string; credentials: string },
): Promise<void> {
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

/**
 * An open connection and its unread bytes (`buffer[start, end)`). A class, not a bundle
 * of closures: every open stream holds its connection.
 */
export class Connection implements ReadBuffer {
  readonly origin: Origin;
  /** When it last went idle (performance.now()). */
  idleSince = 0;
  buffer: Uint8Array = new Uint8Array(READ_BUFFER_BYTES);
  start = 0;
  end = 0;
  /** Whether it failed or was closed: it is never used again. */
  closed = false;
  /** Whether it is in the pool (its idle read's result then means the upstream left). */
  idle = false;
  readonly #socket: Deno.Conn;
  /** The idle read in flight, whose result is the next response's first bytes. */
  #pending: Promise<number | null> | undefined;
  /** Whether the last read filled the buffer: more is likely waiting. */
  #behind = false;

  constructor(socket: Deno.Conn, origin: Origin) {
    this.#socket = socket;
    this.origin = origin;
  }

  /** Writes all of `bytes`: the socket may take less of them at a time. */
  async write(bytes: Uint8Array): Promise<void> {
    for (let written = 0; written < bytes.byteLength;) {
      written += await this.#socket.write(bytes.subarray(written));
    }
  }

  /**
   * Reads more bytes into the buffer (after those unread), which grows up to `maxBytes`
   * for a head that does not fit; false at the end of the stream. A body's reads take
   * every byte buffered before reading more, so only a head grows it. Not an async
   * function: an open stream always has one fill pending, and a `then` on a method bound
   * once holds less than a suspended call (and allocates less for each chunk).
   */
  fill(maxBytes = READ_BUFFER_BYTES): Promise<boolean> {
    if (!makeRoom(this, maxBytes)) {
      return Promise.reject(new MalformedResponse("its head is too large"));
    }
    if (this.#behind && this.end === 0 && this.buffer.byteLength < BURST_READ_BYTES) {
      this.buffer = new Uint8Array(BURST_READ_BYTES);
    }
    const { buffer } = this;
    // The whole buffer when it is empty (the usual case): no view to make for the read.
    return this.#read(this.end === 0 ? buffer : buffer.subarray(this.end)).then(this.#filled);
  }

  readonly #filled = (count: number | null): boolean => {
    if (count === null) return false;
    this.end += count;
    this.#behind = this.end === this.buffer.byteLength;
    return true;
  };

  /** Reads from the socket straight into `into` (after the head: nothing is buffered ahead). */
  readInto(into: Uint8Array): Promise<number | null> {
    return this.#socket.read(into);
  }

  /**
   * Reads the head of the next response (skipping 1xx), leaving what follows it unread;
   * the heads read, interim ones included, may take `maxHeadBytes` in all.
   */
  async readHead(maxHeadBytes = DEFAULT_ANSWER_LIMITS.maxAnswerHeadBytes): Promise<ResponseHead> {
    let left = maxHeadBytes;
    for (;;) {
      let scanned = 0;
      let length: number;
      while ((length = headEnd(this.#unread(), scanned)) < 0) {
        scanned = this.end - this.start;
        if (scanned >= left) throw headTooLarge(maxHeadBytes);
        // Twice the bound: room to move what is unread down rather than refuse it.
        if (!(await this.fill(2 * maxHeadBytes))) {
          throw new ConnectionClosed(
            scanned > 0 ? "in the middle of its answer" : "before answering",
          );
        }
      }
      if (length > left) throw headTooLarge(maxHeadBytes);
      left -= length;
      const head = parseResponseHead(this.#unread(), length);
      this.start += length;
      // 1xx answers are interim: the real one follows on the same connection.
      if (head.status >= 200) {
        shrinkTo(this, READ_BUFFER_BYTES);
        return head;
      }
    }
  }

  /** Starts the idle read of a connection going back to the pool; `onLost` if it ends. */
  watchIdle(onLost: () => void): void {
    this.idle = true;
    this.idleSince = performance.now();
    this.#behind = false;
    shrinkTo(this, READ_BUFFER_BYTES);
    const watching = this.#socket.read(this.buffer);
    this.#pending = watching;
    // Registered before any reader's: while idle, any result means the connection is gone.
    watching.then((count) => {
      if (this.idle) {
        if (count !== null) this.end = count;
        onLost();
      }
    }, () => {
      if (this.idle) onLost();
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.idle = false;
    closeQuietly(this.#socket);
  }

  #read(into: Uint8Array): Promise<number | null> {
    const pending = this.#pending;
    if (!pending) return this.#socket.read(into);
    this.#pending = undefined;
    return pending;
  }

  #unread(): Uint8Array {
    return this.buffer.subarray(this.start, this.end);
  }
}
