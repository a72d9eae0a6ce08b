/**
 * A fake upstream provider for integration tests: a real HTTP server on 127.0.0.1 that
 * speaks the chat, responses and messages wire formats as the providers' API references
 * describe them (written in ./*_wire.ts, sharing no code with tollgate) and misbehaves
 * on request.
 */
import { countTokens } from "gpt-tokenizer";
import { chatBody, chatErrorFrame, chatFrames } from "./chat_wire.ts";
import { messagesBody, messagesErrorFrame, messagesFrames } from "./messages_wire.ts";
import {
  type FakeReply,
  lastUserText,
  providerId,
  requestText,
  usageOf,
  type WireContext,
} from "./reply.ts";
import { responsesBody, responsesErrorFrame, responsesFrames } from "./responses_wire.ts";

export type { FakeReply, FakeToolCall } from "./reply.ts";

/** One request the fake received. */
export interface RecordedRequest {
  method: string;
  /** e.g. `/v1/chat/completions` */
  path: string;
  /** The query string with its `?`, or "". */
  search: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
}

/** An error the fake answers with, in the shape of the path's protocol. */
export interface FakeError {
  status: number;
  /** Defaults to a sentence naming the status. */
  message?: string;
  /** The error `type`; defaults to the provider's type for the status. */
  type?: string;
  /** Answer with it for the next N requests, then behave normally; omitted: always. */
  times?: number;
  headers?: Record<string, string>;
}

/** How the fake behaves; `{}` is normal service. */
export interface Behaviour {
  error?: FakeError;
  /** Report no usage at all, in responses and streams. */
  omitUsage?: boolean;
  /** Cache reads to report (capped at the input tokens). */
  cachedTokens?: number;
  /** Cache writes to report (capped at the input tokens left after cache reads). */
  cacheWriteTokens?: number;
  /** Streams: abort the connection after sending this many events. */
  breakAfter?: number;
  /** Wait for this before answering: before stream event number `gateAfter`, or before a
   * non-stream response. close() releases it. */
  gate?: Promise<void>;
  /** Streams: how many events to send before waiting on `gate` (default 0). */
  gateAfter?: number;
  /** Never send headers: hold every request until close(). */
  hang?: boolean;
  /** Parts of the reply to use instead of the echo of the last user text. */
  reply?: Partial<FakeReply>;
  /** Replies for successive POSTs, in order; the last one repeats. Wins over `reply`. */
  replies?: FakeReply[];
  /** The reply to each request, decided from its body. Wins over `replies` and `reply`. */
  respond?: (body: Record<string, unknown>) => FakeReply;
  /** Streams: after this many events send the protocol's error event and end. */
  midStreamError?: { afterEvents: number; message?: string };
  /**
   * Answer with this recorded transcript verbatim: `sse` to streams, `body` otherwise (an
   * object as JSON, bytes as they are).
   */
  transcript?: { body?: unknown; sse?: string };
}

/** Options of `startFakeUpstream`. */
export interface FakeUpstreamOptions {
  /** Tags replies: `fake:<name> says <last user text>`. Default `upstream`. */
  name?: string;
  /** Ids listed by `GET /v1/models`. Default `["fake-model"]`. */
  models?: string[];
  behaviour?: Behaviour;
  /** Clock in milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** A running fake upstream. */
export interface FakeUpstream {
  name: string;
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:1234/v1`. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Resolves once `count` requests have been received (their bodies read), in all. */
  received(count: number): Promise<void>;
  setBehaviour(behaviour: Behaviour): void;
  /** Stops the server, releasing hung requests and aborting open streams. */
  close(): Promise<void>;
}

type WireProtocol = "chat" | "responses" | "messages";

const PROTOCOL_BY_PATH: Record<string, WireProtocol> = {
  "/v1/chat/completions": "chat",
  "/v1/responses": "responses",
  "/v1/messages": "messages",
};

const WIRES = {
  chat: { prefix: "chatcmpl-", body: chatBody, frames: chatFrames },
  responses: { prefix: "resp_", body: responsesBody, frames: responsesFrames },
  messages: { prefix: "msg_", body: messagesBody, frames: messagesFrames },
};

/** The protocol's error event, as the `sequence`-th event of a stream. */
function errorFrame(protocol: WireProtocol, message: string, sequence: number): string {
  if (protocol === "chat") return chatErrorFrame(message);
  if (protocol === "responses") return responsesErrorFrame(message, sequence);
  return messagesErrorFrame(message);
}

/** Starts a fake upstream on 127.0.0.1 with a free port. */
export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const name = options.name ?? "upstream";
  const models = options.models ?? ["fake-model"];
  const now = options.now ?? Date.now;
  const requests: RecordedRequest[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  let behaviour: Behaviour = options.behaviour ?? {};
  let errorsLeft = behaviour.error?.times;
  let repliesSent = 0;
  const closing = Promise.withResolvers<void>();
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  let closed = false;
  const encoder = new TextEncoder();

  const released = (gate: Promise<void>) => Promise.race([gate, closing.promise]);

  const streamOf = (frames: string[], current: Behaviour): ReadableStream<Uint8Array> => {
    let sent = 0;
    let self: ReadableStreamDefaultController<Uint8Array> | undefined;
    const end = () => {
      if (self) streams.delete(self);
    };
    return new ReadableStream<Uint8Array>({
      start(controller) {
        self = controller;
        streams.add(controller);
      },
      async pull(controller) {
        if (current.gate && sent === (current.gateAfter ?? 0)) await released(current.gate);
        if (!streams.has(controller)) return; // cancelled, or errored by close()
        const frame = frames[sent];
        if (sent === current.breakAfter || frame === undefined) {
          end();
          if (frame === undefined) controller.close();
          else controller.error(new Error(`fake upstream ${name} broke the stream (breakAfter)`));
          return;
        }
        sent++;
        controller.enqueue(encoder.encode(frame));
      },
      cancel: end,
    });
  };

  const replyTo = (body: Record<string, unknown>, current: Behaviour): FakeReply => {
    if (current.respond) return current.respond(body);
    if (current.replies?.length) {
      return current.replies[Math.min(repliesSent++, current.replies.length - 1)]!;
    }
    return { text: `fake:${name} says ${lastUserText(body)}`, ...current.reply };
  };

  const relayed = (protocol: WireProtocol, body: Record<string, unknown>, current: Behaviour) => {
    const reply = replyTo(body, current);
    const wire = WIRES[protocol];
    const usage = current.omitUsage ? undefined : usageOf(body, reply, {
      cached: current.cachedTokens,
      cacheWrite: current.cacheWriteTokens,
    });
    const context: WireContext = {
      model: typeof body.model === "string" ? body.model : models[0] ?? "fake-model",
      id: providerId(wire.prefix),
      created: Math.floor(now() / 1000),
      usage,
      request: body,
    };
    if (body.stream !== true) return json(wire.body(reply, context));
    let frames = current.transcript?.sse !== undefined
      ? [current.transcript.sse]
      : wire.frames(reply, context);
    const broken = current.midStreamError;
    if (broken) {
      frames = frames.slice(0, broken.afterEvents);
      frames.push(
        errorFrame(protocol, broken.message ?? "The fake upstream failed.", frames.length),
      );
    }
    return new Response(streamOf(frames, current), {
      headers: { ...ids(), "content-type": "text/event-stream; charset=utf-8" },
    });
  };

  const answer = async (request: Request, url: URL, body: unknown): Promise<Response> => {
    const current = behaviour;
    if (current.hang) {
      await closing.promise;
      return errorResponse(url.pathname, { status: 503, message: "The fake upstream closed." });
    }
    if (current.error && (errorsLeft === undefined || errorsLeft > 0)) {
      if (errorsLeft !== undefined) errorsLeft--;
      return errorResponse(url.pathname, current.error);
    }
    if (request.method === "GET" && url.pathname === "/v1/models") return json(modelList(models));
    if (request.method !== "POST") return notFound(url.pathname);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return errorResponse(url.pathname, { status: 400, message: "The body must be JSON." });
    }
    const object = body as Record<string, unknown>;
    if (url.pathname === "/v1/messages/count_tokens") {
      if (!Array.isArray(object.messages)) {
        return errorResponse(url.pathname, { status: 400, message: "messages: Field required" });
      }
      return json({ input_tokens: countTokens(requestText(object)) });
    }
    const protocol = PROTOCOL_BY_PATH[url.pathname];
    if (!protocol) return notFound(url.pathname);
    if (typeof object.model !== "string") {
      return errorResponse(url.pathname, { status: 400, message: "model: Field required" });
    }
    if (current.transcript?.body !== undefined && object.stream !== true) {
      if (current.gate) await released(current.gate);
      const { body } = current.transcript;
      if (!(body instanceof Uint8Array)) return json(body);
      return new Response(body as Uint8Array<ArrayBuffer>, {
        headers: { ...ids(), "content-type": "application/json" },
      });
    }
    if (current.gate && object.stream !== true) await released(current.gate);
    return relayed(protocol, object, current);
  };

  // onListen also silences Deno's "Listening on" line.
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const onListen = (addr: Deno.NetAddr) => listening.resolve(addr);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen }, async (request) => {
    const url = new URL(request.url);
    const body = await readBody(request);
    requests.push({
      method: request.method,
      path: url.pathname,
      search: url.search,
      headers: Object.fromEntries(request.headers),
      body,
    });
    for (const waiter of waiting.filter((w) => w.count <= requests.length)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
    return await answer(request, url, body);
  });

  const { port } = await listening.promise;
  return {
    name,
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    received(count) {
      if (requests.length >= count) return Promise.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      waiting.push({ count, resolve });
      return promise;
    },
    setBehaviour(next: Behaviour) {
      behaviour = next;
      errorsLeft = next.error?.times;
      repliesSent = 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      closing.resolve();
      // Deno.serve logs each errored body: expected noise in tests that close mid-stream.
      for (const stream of streams) stream.error(new Error(`fake upstream ${name} closed`));
      streams.clear();
      await server.shutdown();
    },
  };
}

async function readBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function ids(): Record<string, string> {
  const id = `req_${crypto.randomUUID().replaceAll("-", "")}`;
  // OpenAI names it x-request-id, Anthropic request-id.
  return { "x-request-id": id, "request-id": id };
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...ids(), ...headers, "content-type": "application/json" },
  });
}

function notFound(path: string): Response {
  return errorResponse(path, { status: 404, message: `Unknown path ${path}.` });
}

const OPENAI_TYPE: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_denied",
  404: "invalid_request_error",
  429: "rate_limit_exceeded",
};

const ANTHROPIC_TYPE: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

/** An error as the provider of the path would send it. */
function errorResponse(path: string, error: FakeError): Response {
  const message = error.message ?? `The fake upstream answered ${error.status}.`;
  if (path.startsWith("/v1/messages")) {
    const type = error.type ?? ANTHROPIC_TYPE[error.status] ?? "api_error";
    const body = { type: "error", error: { type, message }, request_id: "req_fake" };
    return json(body, error.status, error.headers);
  }
  const type = error.type ?? OPENAI_TYPE[error.status] ?? "server_error";
  const body = { error: { message, type, param: null, code: null } };
  return json(body, error.status, error.headers);
}

/** A model list both SDK families can read (OpenAI `Model`, Anthropic `ModelInfo`). */
function modelList(models: string[]) {
  const created = 1_700_000_000;
  return {
    object: "list",
    data: models.map((id) => ({
      id,
      object: "model",
      created,
      owned_by: "fake",
      type: "model",
      display_name: id,
      created_at: new Date(created * 1000).toISOString(),
    })),
    has_more: false,
    first_id: models[0] ?? null,
    last_id: models.at(-1) ?? null,
  };
}
