/**
 * tollgate's HTTP/1.1 server, on `Deno.listen`: it reads each connection's requests in
 * turn (keep-alive, pipelining, chunked bodies, `Expect: 100-continue`), hands each to
 * the app, and writes the answer: whole in one write, or streamed as chunks. It makes no
 * `Request`, `Response` or `ReadableStream`: `Deno.serve` holds ~32 KiB of native ring
 * a streamed answer and builds objects the app never reads (bench/README.md).
 */
import { AlarmClock } from "../upstream/alarm_clock.ts";
import { headEnd } from "../upstream/http1/head.ts";
import { headAndBody, WriteBuffers } from "../upstream/http1/write_buffers.ts";
import { ByteSlab } from "../upstream/http1/byte_slab.ts";
import {
  type Answer,
  answerHead,
  type AnswerStream,
  type ByteSink,
  chunk,
  LAST_CHUNK,
} from "./answer.ts";
import { ClientConnection, headTooLarge, MAX_HEAD_BYTES } from "./connection.ts";
import { Incoming, type IncomingRequest } from "./incoming.ts";
import {
  BadRequest,
  type BodyFraming,
  bodyFramingOf,
  parseRequestHead,
  type RequestHead,
  wantsKeepAlive,
} from "./request_head.ts";
import { type ConnectionTimer, connectionTimer } from "./timeouts.ts";

/** What the server is built from. */
export interface HttpServerOptions {
  hostname: string;
  port: number;
  /** Answers a request; never throws (the app renders its own errors). */
  handle(request: IncomingRequest): Promise<Answer>;
  /**
   * The answer to a request the server cannot read (status 400, 431, 501, 505), with its
   * path when its head was read.
   */
  refuse(status: number, message: string, path?: string): Answer;
  /** Told of an answer that failed outside the app (a stream that threw, say). */
  onError?(error: unknown): void;
  /** Timeouts in milliseconds; the defaults suit clients on the internet. */
  timeouts?: Partial<ServerTimeouts>;
}

/** How long the server waits on a client. */
export interface ServerTimeouts {
  /** An idle kept-alive connection is closed after this. */
  keepAlive: number;
  /** A request's head, and each read of its body, must arrive within this. */
  request: number;
}

const DEFAULT_TIMEOUTS: ServerTimeouts = { keepAlive: 75_000, request: 30_000 };

/** A listening server. */
export interface HttpServer {
  readonly addr: Deno.NetAddr;
  /** Resolves once the server stopped and every connection closed. */
  readonly finished: Promise<void>;
  /**
   * Stops accepting, closes the connections between requests and lets each request under
   * way finish (then closes its connection); resolves once all are closed.
   */
  shutdown(): Promise<void>;
}

/** Starts serving on `hostname:port` (0: a free port). */
export function serveHttp(options: HttpServerOptions): HttpServer {
  return new Server(options);
}

/** Bytes of an unread body drained before closing, so that the client reads its answer. */
const LINGER_BYTES = 1 << 20;
const CR = 13;
const LF = 10;
const ENCODER = new TextEncoder();

class Server implements HttpServer {
  readonly addr: Deno.NetAddr;
  readonly finished: Promise<void>;
  readonly #options: HttpServerOptions;
  readonly #listener: Deno.Listener;
  readonly #timeouts: ServerTimeouts;
  readonly #clock = new AlarmClock();
  /** The arrays whole answers are written from. */
  readonly #buffers = new WriteBuffers();
  readonly #slab = new ByteSlab();
  /**
   * Every open connection, with whether it is between requests (reading the next head, or
   * waiting for it): the app has nothing of it, so shutdown may close it at once.
   */
  readonly #connections = new Map<ClientConnection, { between: boolean }>();
  readonly #served = new Set<Promise<void>>();
  #closing = false;
  #dateText = "";
  #dateSecond = -1;

  constructor(options: HttpServerOptions) {
    this.#options = options;
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.#listener = Deno.listen({ hostname: options.hostname, port: options.port });
    this.addr = this.#listener.addr as Deno.NetAddr;
    this.finished = this.#accept();
  }

  async shutdown(): Promise<void> {
    if (!this.#closing) {
      this.#closing = true;
      this.#listener.close();
      for (const [connection, state] of this.#connections) if (state.between) connection.close();
    }
    await this.finished;
  }

  async #accept(): Promise<void> {
    while (!this.#closing) {
      let socket: Deno.Conn;
      try {
        socket = await this.#listener.accept();
      } catch (error) {
        if (this.#closing || error instanceof Deno.errors.BadResource) break;
        // Out of file descriptors, say: the clients already connected go on being served.
        this.#options.onError?.(error);
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (this.#closing) {
        socket.close();
        break;
      }
      (socket as Deno.TcpConn).setNoDelay(true);
      const served = this.#serve(new ClientConnection(socket, this.#slab));
      this.#served.add(served);
      served.finally(() => this.#served.delete(served));
    }
    while (this.#served.size > 0) await Promise.all(this.#served);
  }

  /** Serves one connection's requests in turn until it closes. */
  async #serve(connection: ClientConnection): Promise<void> {
    const state = { between: true };
    this.#connections.set(connection, state);
    const timer = connectionTimer(this.#clock, connection);
    try {
      for (;;) {
        state.between = true;
        const head = this.#closing ? undefined : await this.#readHead(connection, timer);
        state.between = false;
        timer.stop();
        if (!head || !await this.#exchange(connection, head, timer)) break;
      }
    } catch (error) {
      if (error instanceof BadRequest) {
        await this.#refuse(connection, error, timer).catch(() => {});
      } else this.#options.onError?.(error);
    } finally {
      timer.stop();
      this.#connections.delete(connection);
      connection.close();
    }
  }

  /**
   * The next request's head, or undefined once the client closed (or went quiet: an idle
   * connection after the keep-alive timeout, a head begun after the request timeout).
   */
  async #readHead(
    connection: ClientConnection,
    timer: ConnectionTimer,
  ): Promise<RequestHead | undefined> {
    let begun = connection.buffered;
    timer.expire(this.#timeouts[begun ? "request" : "keepAlive"]);
    let scanned = 0;
    for (;;) {
      // Empty lines before a request line are skipped (RFC 9112 §2.2).
      while (connection.buffered && isLineEnd(connection.buffer[connection.start]!)) {
        connection.start++;
      }
      const unread = connection.buffer.subarray(connection.start, connection.end);
      const length = headEnd(unread, scanned);
      if (length >= 0) {
        const head = parseRequestHead(
          connection.buffer,
          connection.start,
          connection.start + length,
        );
        connection.start += length;
        connection.shrink();
        return head;
      }
      scanned = Math.max(0, unread.byteLength - 3);
      if (unread.byteLength >= MAX_HEAD_BYTES) throw headTooLarge();
      if (!(await connection.fill())) return undefined;
      if (!begun) {
        // The first bytes of a request: it now has the request timeout to arrive whole.
        begun = true;
        timer.expire(this.#timeouts.request);
      }
    }
  }

  /** One request and its answer; whether the connection may carry another. */
  async #exchange(
    connection: ClientConnection,
    head: RequestHead,
    timer: ConnectionTimer,
  ): Promise<boolean> {
    const framing: BodyFraming = bodyFramingOf(head);
    let watch: ClientWatch | undefined;
    const request: Incoming = new Incoming(connection, head, framing, {
      bodyReading: () => timer.expire(this.#timeouts.request),
      bodyRead: (whole) => {
        timer.stop();
        if (whole) watch = new ClientWatch(connection, request);
      },
    });
    if (request.bodyDone) watch = new ClientWatch(connection, request);
    let answer: Answer;
    try {
      answer = await this.#options.handle(request);
    } catch (error) {
      this.#options.onError?.(error);
      answer = this.#options.refuse(500, "The gateway failed to answer.");
    }
    const keepAlive = request.bodyDone && !this.#closing && wantsKeepAlive(head) &&
      !connection.ended;
    let reusable: boolean;
    try {
      reusable = await this.#write(connection, answer, watch, {
        keepAlive,
        withBody: head.method !== "HEAD",
        http10: head.version === "1.0",
      });
    } finally {
      watch?.stop();
    }
    if (connection.broken) return false;
    if (!request.bodyDone) await this.#linger(connection, timer);
    return reusable && !this.#closing;
  }

  /** Writes an answer; whether the connection can carry another request after it. */
  async #write(
    connection: ClientConnection,
    answer: Answer,
    watch: ClientWatch | undefined,
    options: { keepAlive: boolean; withBody: boolean; http10: boolean },
  ): Promise<boolean> {
    const { body } = answer;
    if (typeof body === "string" || body instanceof Uint8Array) {
      const bytes = typeof body === "string" ? ENCODER.encode(body) : body;
      const head = answerHead(answer.status, answer.headers, { length: bytes.byteLength }, {
        date: this.#date(),
        close: !options.keepAlive,
      });
      const whole = headAndBody(head, options.withBody ? bytes : EMPTY, this.#buffers.take);
      await connection.write(whole).catch(gone);
      this.#buffers.give(whole);
      return options.keepAlive;
    }
    // HTTP/1.0 knows no chunks: its stream ends when the connection closes.
    const chunked = !options.http10;
    const head = answerHead(answer.status, answer.headers, chunked ? "chunked" : "close", {
      date: this.#date(),
      close: !options.keepAlive || !chunked,
    });
    if (!options.withBody) {
      body.cancel();
      await connection.write(ENCODER.encode(head)).catch(gone);
      return options.keepAlive;
    }
    if (watch) watch.stream = body;
    const sink = new ChunkSink(connection, body, head, chunked);
    const piped = body.pipe(sink);
    // A stream that wrote nothing at once (it waits on something) still answers at once.
    sink.flushHead();
    await piped.catch((error) => {
      // A write that failed cancelled the stream already; anything else is a fault.
      if (!connection.broken) throw error;
    });
    if (connection.broken) return false;
    await sink.end();
    return options.keepAlive && chunked;
  }

  /** A request's body was left unread: drain some of it, so that the client reads the answer. */
  async #linger(connection: ClientConnection, timer: ConnectionTimer): Promise<void> {
    connection.closeWrite();
    timer.expire(2_000);
    let drained = 0;
    while (drained < LINGER_BYTES && await connection.fill()) {
      drained += connection.end - connection.start;
      connection.start = connection.end;
    }
    timer.stop();
  }

  async #refuse(
    connection: ClientConnection,
    error: BadRequest,
    timer: ConnectionTimer,
  ): Promise<void> {
    if (connection.broken) return;
    const answer = this.#options.refuse(error.status, error.message, error.path);
    await this.#write(connection, answer, undefined, {
      keepAlive: false,
      withBody: true,
      http10: false,
    });
    await this.#linger(connection, timer);
  }

  /** The `date` header's value, made once a second. */
  #date(): string {
    const now = Date.now();
    const second = Math.floor(now / 1000);
    if (second !== this.#dateSecond) {
      this.#dateSecond = second;
      this.#dateText = new Date(now).toUTCString();
    }
    return this.#dateText;
  }
}

/** A write's failure: the client is gone, which the connection has noted (`broken`). */
function gone(): void {}

const EMPTY = new Uint8Array(0);

function isLineEnd(byte: number): boolean {
  return byte === CR || byte === LF;
}

/**
 * Once a request's body is read, the connection keeps a read in flight until the answer
 * is written: its end means the client went away, and the request's signal aborts (and
 * a stream under way is cancelled). Bytes it brings (a pipelined request) stay
 * buffered, up to half a buffer's worth.
 */
class ClientWatch {
  /** The answer's stream, once it is written. */
  stream: AnswerStream | undefined;
  readonly #connection: ClientConnection;
  readonly #request: Incoming;
  #watching = true;

  constructor(connection: ClientConnection, request: Incoming) {
    this.#connection = connection;
    this.#request = request;
    this.#read();
  }

  stop(): void {
    this.#watching = false;
  }

  #read(): void {
    const connection = this.#connection;
    if (!this.#watching || connection.end - connection.start >= connection.buffer.byteLength / 2) {
      return;
    }
    connection.fill().then(this.#filled, this.#filled);
  }

  readonly #filled = (more: unknown): void => {
    if (!this.#watching) return;
    if (more === true) return this.#read();
    this.#watching = false;
    this.#request.gone();
    this.stream?.cancel();
  };
}

/** A stream's writes as chunks; the head goes out with the first, or alone before it. */
class ChunkSink implements ByteSink {
  readonly #connection: ClientConnection;
  readonly #stream: AnswerStream;
  readonly #chunked: boolean;
  #head: string | undefined;
  /** The head written alone, which the first write waits for. */
  #headWrite: Promise<void> | undefined;
  /** Whether the body's end was written (by `last`) or is being written. */
  #ended = false;

  constructor(connection: ClientConnection, stream: AnswerStream, head: string, chunked: boolean) {
    this.#connection = connection;
    this.#stream = stream;
    this.#head = head;
    this.#chunked = chunked;
  }

  /** Writes the head now unless a write took it already. */
  flushHead(): void {
    if (this.#head === undefined) return;
    const head = ENCODER.encode(this.#head);
    this.#head = undefined;
    this.#headWrite = this.#connection.write(head).catch(this.#failed);
  }

  write(bytes: Uint8Array): Promise<void> {
    return this.#send(bytes, false);
  }

  last(bytes: Uint8Array): Promise<void> {
    this.#ended = true;
    return this.#send(bytes, true);
  }

  #send(bytes: Uint8Array, last: boolean): Promise<void> {
    if (this.#headWrite) {
      const headWrite = this.#headWrite;
      this.#headWrite = undefined;
      return headWrite.then(() => this.#send(bytes, last));
    }
    const head = this.#head ?? "";
    this.#head = undefined;
    const framed = this.#chunked
      ? chunk(bytes, head, last)
      : head === ""
      ? bytes
      : headAndBody(head, bytes);
    return this.#connection.write(framed).catch(this.#failed);
  }

  /** The last chunk (and the head, if nothing was written), unless `last` wrote it; never rejects. */
  async end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#headWrite) await this.#headWrite.catch(gone);
    const head = this.#head ?? "";
    this.#head = undefined;
    const last = this.#chunked ? LAST_CHUNK : EMPTY;
    if (head === "" && last === EMPTY) return;
    await this.#connection.write(head === "" ? last : headAndBody(head, last)).catch(gone);
  }

  readonly #failed = (error: unknown): never => {
    this.#stream.cancel();
    throw error;
  };
}
