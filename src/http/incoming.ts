/**
 * A request as the server hands it to the app: its head, its body read on demand under
 * a size limit, and a signal that aborts when the client goes away before its answer
 * was written. No `Request` object: building one costs ~10 µs, and the app reads only
 * a few headers (bench/README.md).
 */
import { concatBytes } from "../bytes.ts";
import { createChunkedDecoder } from "../upstream/http1/chunked.ts";
import type { ClientConnection } from "./connection.ts";
import type { BodyFraming, RequestHead } from "./request_head.ts";
import { Stop, type StopSignal } from "../upstream/stop_signal.ts";
import type { Awaitable } from "../awaitable.ts";

/** A client's request, as the app sees it. */
export interface IncomingRequest {
  readonly method: string;
  /** The path as sent, without the query. */
  readonly path: string;
  /** The query with its `?`, or "". */
  readonly search: string;
  /** Header values by lowercase name (repeated fields joined with ", "). */
  readonly headers: ReadonlyMap<string, string>;
  /** The TCP peer's address. */
  readonly remoteAddr: string;
  /** The body's declared size (Content-Length), or -1 for a chunked body. */
  readonly declaredBodySize: number;
  /** Aborted once the client went away before its answer was written. */
  readonly signal: StopSignal;
  /**
   * The whole body, at once when it is all buffered (as it nearly always is: it came with
   * the head); BodyRefused past `maxBytes`, or when the client stops short.
   */
  body(maxBytes: number): Awaitable<Uint8Array>;
}

/** Why a body could not be read. */
export type BodyFault = "too_large" | "incomplete" | "malformed";

/** A body the server could not read whole. */
export class BodyRefused extends Error {
  constructor(readonly fault: BodyFault, why: string) {
    super(why);
    this.name = "BodyRefused";
  }
}

const CONTINUE = new TextEncoder().encode("HTTP/1.1 100 Continue\r\n\r\n");

/** Told when a body read starts and ends: the server times it, then watches the client. */
export interface BodyWatch {
  /** A body read starts, or bytes of it arrived: the next must come within the timeout. */
  bodyReading(): void;
  /** `whole`: the body was read to its end; else the read failed (the connection is spent). */
  bodyRead(whole: boolean): void;
}

/** One request on a connection. */
export class Incoming implements IncomingRequest {
  readonly method: string;
  readonly path: string;
  readonly search: string;
  readonly headers: ReadonlyMap<string, string>;
  readonly declaredBodySize: number;
  /** Whether the body was read to its end (the connection is then at the next request). */
  bodyDone: boolean;
  readonly #connection: ClientConnection;
  readonly #framing: BodyFraming;
  readonly #watch: BodyWatch;
  #expectsContinue: boolean;
  #stop: Stop | undefined;

  constructor(
    connection: ClientConnection,
    head: RequestHead,
    framing: BodyFraming,
    watch: BodyWatch,
  ) {
    this.#connection = connection;
    this.#framing = framing;
    this.#watch = watch;
    this.method = head.method;
    this.path = head.path;
    this.search = head.search;
    this.headers = head.headers;
    this.declaredBodySize = framing.kind === "length" ? framing.length : -1;
    this.bodyDone = framing.kind === "length" && framing.length === 0;
    this.#expectsContinue = !this.bodyDone && head.version === "1.1" &&
      head.headers.get("expect")?.toLowerCase() === "100-continue";
  }

  get remoteAddr(): string {
    return this.#connection.remoteAddr;
  }

  /** Made on first use: a request whose signal nobody reads needs none. */
  get signal(): StopSignal {
    return this.#stop ??= new Stop();
  }

  /** The client went away: whoever watches the signal stops. */
  gone(): void {
    (this.#stop ??= new Stop()).abort();
  }

  body(maxBytes: number): Awaitable<Uint8Array> {
    if (this.declaredBodySize > maxBytes) {
      throw new BodyRefused("too_large", `Content-Length ${this.declaredBodySize}`);
    }
    if (this.bodyDone) return new Uint8Array(0);
    // A suspended read costs ~1 µs in place (bench/README.md): a body already here is not awaited.
    if (this.#framing.kind === "length" && !this.#expectsContinue) {
      const whole = this.#connection.takeBuffered(this.#framing.length);
      if (whole) {
        this.bodyDone = true;
        this.#watch.bodyRead(true);
        return whole;
      }
    }
    return this.#bodyLater(maxBytes);
  }

  async #bodyLater(maxBytes: number): Promise<Uint8Array> {
    // The client waits for this before it sends the body (RFC 9110 §10.1.1).
    if (this.#expectsContinue) {
      this.#expectsContinue = false;
      await this.#connection.write(CONTINUE).catch(() => {});
    }
    this.#watch.bodyReading();
    try {
      const bytes = this.#framing.kind === "length"
        ? await this.#readLength(this.#framing.length)
        : await this.#readChunked(maxBytes);
      this.bodyDone = true;
      return bytes;
    } finally {
      this.#watch.bodyRead(this.bodyDone);
    }
  }

  // Straight into bytes of the body's size: no copy per read.
  async #readLength(length: number): Promise<Uint8Array> {
    const body = new Uint8Array(length);
    for (let filled = 0; filled < length;) {
      const count = await this.#connection.readInto(body.subarray(filled));
      if (count === 0) throw incomplete();
      filled += count;
      if (filled < length) this.#watch.bodyReading();
    }
    return body;
  }

  async #readChunked(maxBytes: number): Promise<Uint8Array> {
    const connection = this.#connection;
    const decoder = createChunkedDecoder((why) => new BodyRefused("malformed", why));
    const parts: Uint8Array[] = [];
    const ranges: number[] = [];
    let size = 0;
    for (;;) {
      if (!connection.buffered && !(await connection.fill())) throw incomplete();
      ranges.length = 0;
      const ended = decoder.decode(connection.buffer, connection.start, connection.end, ranges);
      for (let i = 0; i < ranges.length; i += 2) {
        size += ranges[i + 1]! - ranges[i]!;
        if (size > maxBytes) throw new BodyRefused("too_large", `over ${maxBytes} bytes`);
        parts.push(connection.buffer.slice(ranges[i]!, ranges[i + 1]!));
      }
      connection.start = ended < 0 ? connection.end : ended;
      if (ended >= 0) return concatBytes(parts);
      this.#watch.bodyReading();
    }
  }
}

function incomplete(): BodyRefused {
  return new BodyRefused("incomplete", "the connection ended before the whole body arrived");
}
