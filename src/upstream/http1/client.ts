/**
 * tollgate's HTTP/1.1 client for its channels: POSTs over keep-alive connections kept
 * per origin, read without the runtime's fetch. fetch costs a relay more CPU than the rest
 * of an upstream call and wraps every body in web streams; here a stream's chunk is one
 * socket read (bench/README.md compares them). Every LLM API speaks HTTP/1.1; bodies are
 * asked for uncompressed (no Accept-Encoding), as a relay reads them anyway, and decoded
 * when a server compresses them all the same (content_coding.ts). What an upstream answers
 * is bounded (limits.ts): its head, a whole body, a chunk's extensions, its trailers.
 */
import { UpstreamFailure } from "../call.ts";
import type { StopSignal } from "../../clock/stop_signal.ts";
import type { UpstreamResponse } from "../response.ts";
import { type BodyEnd, type Http1Body, readBody } from "./body.ts";
import { decodedBody } from "./content_coding.ts";
import { type Connection, ConnectionClosed, openConnection, type Origin } from "./connection.ts";
import { type Framing, framingOf, keepsAlive, type ResponseHead } from "./head.ts";
import { encodeRequest, headerLines, type Http1Request } from "./request.ts";
import { createPool, type Pool } from "./pool.ts";
import {
  bareHostname,
  proxyAuthorizationLine,
  proxyFor,
  type ProxySettings,
  proxySettings,
} from "./proxy.ts";
import { type AnswerLimits, answerLimits } from "./limits.ts";

/** What a POST needs beside the request. */
export interface PostOptions {
  /** Aborting it closes the connection, failing whatever waits on it with its reason. */
  signal: StopSignal;
  /** How long a new connection may take to open (ms). */
  connectMs: number;
  /** This request's bounds on the answer, in place of the client's (a reloaded config's). */
  limits?: Readonly<AnswerLimits>;
}

/** The upstream client of one gateway process. */
export interface HttpClient {
  /** Sends a POST; resolves once the response's head arrived. */
  post(request: Http1Request, options: PostOptions): Promise<UpstreamResponse>;
  /** Closes the idle connections (those in use close when their request ends). */
  close(): void;
}

/** Where a request URL goes: its origin, the first line's target, its Host, extra lines. */
interface Target {
  origin: Origin;
  /** The path, or the whole URL when an http proxy forwards it. */
  requestTarget: string;
  host: string;
  /** Header lines for a proxy that forwards the request (its credentials). */
  extra: string;
}

/** Distinct request URLs whose target is kept; past this (a query per request) it restarts. */
const MAX_TARGETS = 1_000;

/**
 * A client. `caCerts` (PEM) are trusted beside the runtime's roots (tests' own TLS
 * servers); `env` is where proxy settings are read (Deno.env.get unless a test passes one);
 * `maxIdleMs` is how long an idle connection is kept (pool.ts's MAX_IDLE_MS unless a test
 * shortens it); `limits` bound every answer unless a request brings its own (the
 * defaults of limits.ts for those left out).
 */
export function createHttpClient(
  options: {
    caCerts?: string[];
    env?: (name: string) => string | undefined;
    maxIdleMs?: number;
    limits?: Partial<AnswerLimits>;
  } = {},
): HttpClient {
  const pool = createPool(options.maxIdleMs);
  const limits = answerLimits(options.limits);
  const proxies = proxySettings(options.env ?? ((name) => Deno.env.get(name)));
  const targets = new Map<string, Target>();
  const cachedTarget = (url: string): Target => {
    let target = targets.get(url);
    if (!target) {
      if (targets.size >= MAX_TARGETS) targets.clear();
      targets.set(url, target = targetOf(url, proxies));
    }
    return target;
  };

  // The encoded lines of each headers object posted: requests alike share theirs (request.ts).
  const encodedLines = new WeakMap<Readonly<Record<string, string>>, string>();
  const linesOf = (headers: Readonly<Record<string, string>>): string => {
    let lines = encodedLines.get(headers);
    if (lines === undefined) encodedLines.set(headers, lines = headerLines(headers));
    return lines;
  };

  const connect = async (origin: Origin, { signal, connectMs }: PostOptions) => {
    // The runtime's connect takes its own AbortSignal: the request's stop or the timeout aborts it.
    const giveUp = new AbortController();
    const timer = setTimeout(() => giveUp.abort(), connectMs);
    const stopped = () => giveUp.abort(signal.reason);
    signal.addEventListener("abort", stopped);
    try {
      signal.throwIfAborted();
      return await openConnection(origin, giveUp.signal, options.caCerts);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      // Aborted, and not by the request's stop: by the timeout.
      if (giveUp.signal.aborted) {
        throw new UpstreamFailure(
          "timeout",
          `The upstream accepted no connection within ${connectMs} ms.`,
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", stopped);
    }
  };

  return {
    async post(request, postOptions) {
      const { signal } = postOptions;
      signal.throwIfAborted();
      const bounds = postOptions.limits ?? limits;
      const target = cachedTarget(request.url);
      // Encoded before any connection is taken: a header that would break the head throws.
      const bytes = encodeRequest(
        target.requestTarget,
        target.host,
        linesOf(request.headers),
        request,
        target.extra,
      );
      const pooled = pool.acquire(target.origin.key);
      if (pooled) {
        try {
          return await new Http1Exchange(pooled, signal, pool, bounds).send(bytes);
        } catch (error) {
          // The upstream closed this idle connection as the request went out: nothing of
          // an answer came, so the request goes once more, on a new connection.
          if (signal.aborted || !closedBeforeAnswer(pooled, error)) throw error;
        }
      }
      const connection = await connect(target.origin, postOptions);
      return await new Http1Exchange(connection, signal, pool, bounds).send(bytes);
    },
    close: () => pool.close(),
  };
}

const DECODER = new TextDecoder();

/**
 * One request on one connection, from its bytes going out to its body's end: the head
 * read, the body handed out to be read. It listens to the abort itself (handleEvent)
 * and is told of the body's end (bodyEnded): no closures held for a stream's length.
 */
class Http1Exchange implements BodyEnd {
  #reusable = false;
  /** Whether all of the request went out: a connection cut short mid-request is not reused. */
  #written = false;

  constructor(
    readonly connection: Connection,
    readonly signal: StopSignal,
    readonly pool: Pool,
    readonly limits: Readonly<AnswerLimits>,
  ) {}

  /** Sends `bytes` and reads the answer's head. */
  async send(bytes: Uint8Array): Promise<UpstreamResponse> {
    const { connection, signal } = this;
    signal.addEventListener("abort", this, { once: true });
    try {
      // Aborted as the connection opened: the listener came too late to hear it.
      signal.throwIfAborted();
      // The answer is read while the request goes out (RFC 9112 §9.5): an upstream may
      // answer before it read all of a large request (a 413) and then stop reading, or
      // close, which fails the write. The answer tells what happened; a failed write alone
      // says nothing more (the read fails too).
      connection.write(bytes).then(() => this.#written = true, () => {});
      const head = await connection.readHead(this.limits.maxAnswerHeadBytes);
      const framing = framingOf(head);
      this.#reusable = keepsAlive(head, framing);
      const body = readBody(connection, framing, signal, this, this.limits);
      return new Http1Response(
        head,
        framing,
        // No body, nothing to decode: a 204 may name the coding its content would have had.
        framing.kind === "none" ? body : decodedBody(head.headers.get("content-encoding"), body),
      );
    } catch (error) {
      signal.removeEventListener("abort", this);
      connection.close();
      throw signal.aborted ? signal.reason : error;
    }
  }

  /** The signal aborted: closing the connection fails whatever waits on it. */
  handleEvent(): void {
    this.connection.close();
  }

  bodyEnded(exact: boolean): void {
    this.signal.removeEventListener("abort", this);
    if (exact && this.#reusable && this.#written) this.pool.release(this.connection);
    else this.connection.close();
  }
}

/** A response whose head arrived, its body to be read. */
class Http1Response implements UpstreamResponse {
  readonly status: number;
  /** The body to read, or null when the framing says there is none. */
  readonly body: Http1Body | null;
  readonly #head: ResponseHead;
  /** The body even when there is none to read (`text()` is then ""). */
  readonly #whole: Http1Body;

  constructor(head: ResponseHead, framing: Framing, body: Http1Body) {
    this.status = head.status;
    this.#head = head;
    this.body = framing.kind === "none" ? null : body;
    this.#whole = body;
  }

  header(name: string): string | undefined {
    return this.#head.headers.get(name);
  }

  async text(): Promise<string> {
    return DECODER.decode(await this.#whole.readAll());
  }

  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    // Every read is a fresh ArrayBuffer's bytes, never a shared one's (the type allows both).
    return this.#whole.readAll() as Promise<Uint8Array<ArrayBuffer>>;
  }
}

/** Whether a reused connection failed before a byte of the answer arrived. */
function closedBeforeAnswer(connection: Connection, error: unknown): boolean {
  return connection.end === 0 && (
    error instanceof ConnectionClosed || error instanceof Deno.errors.BrokenPipe ||
    error instanceof Deno.errors.ConnectionReset || error instanceof Deno.errors.UnexpectedEof
  );
}

/** Where an absolute http(s) URL goes, directly or through the environment's proxy. */
function targetOf(text: string, proxies: ProxySettings): Target {
  const url = new URL(text);
  const tls = url.protocol === "https:";
  if (!tls && url.protocol !== "http:") {
    throw new UpstreamFailure("network", `The channel URL ${url.protocol} is not http or https.`);
  }
  const hostname = bareHostname(url.hostname);
  const port = Number(url.port) || (tls ? 443 : 80);
  const direct = `${url.protocol}//${url.hostname}:${port}`;
  const path = `${url.pathname}${url.search}`;
  const proxy = proxyFor(proxies, url);
  if (!proxy) {
    return {
      origin: { key: direct, hostname, port, tls: tls ? hostname : undefined },
      requestTarget: path,
      host: url.host,
      extra: "",
    };
  }
  const credentials = proxyAuthorizationLine(proxy);
  const via = { hostname: bareHostname(proxy.hostname), port: Number(proxy.port) || 80 };
  if (tls) {
    return {
      origin: {
        key: `${direct} via ${proxy.host}`,
        ...via,
        tls: hostname,
        tunnel: { authority: `${url.hostname}:${port}`, credentials },
      },
      requestTarget: path,
      host: url.host,
      extra: "",
    };
  }
  return {
    origin: { key: `proxy ${proxy.host}`, ...via },
    requestTarget: `${url.protocol}//${url.host}${path}`,
    host: url.host,
    extra: credentials,
  };
}
