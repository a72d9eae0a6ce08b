/**
 * A fake upstream provider for integration tests: a real HTTP server on 127.0.0.1 that
 * speaks the chat, responses, messages and Gemini wire formats as the providers' API references
 * describe them (written in ./*_wire.ts, sharing no code with tollgate) and misbehaves
 * on request, one behaviour per request (./behaviour.ts; named faults in ./faults.ts).
 * A raw TCP front (./tcp_front.ts) lets it close a connection unanswered.
 */
import { countTokens } from "gpt-tokenizer";
import type { Behaviour, FakeError, Plan, WireProtocol } from "./behaviour.ts";
import { scriptOf } from "./faults.ts";
import { continuation, promptRefusal, trailingAssistantText } from "./prefill.ts";
import { embeddingsAnswer } from "./embeddings_wire.ts";
import { errorBody } from "./provider_errors.ts";
import {
  type FakeReply,
  lastUserText,
  providerId,
  requestText,
  usageOf,
  type WireContext,
  type WireFrame,
} from "./reply.ts";
import { type PlanContext, planStream, planWhole, playBeats } from "./stream_plan.ts";
import { type FakeEvent, Tally } from "./tally.ts";
import { FRONT_CONTROL, startTcpFront } from "./tcp_front.ts";
import { type FakeWire, streamErrorFrame, WIRES } from "./wires.ts";

export type { FakeReply, FakeToolCall } from "./reply.ts";
export type {
  AtPoint,
  Behaviour,
  FakeError,
  FaultName,
  Plan,
  Step,
  StreamPoint,
  WireProtocol,
} from "./behaviour.ts";
export type { FakeEvent } from "./tally.ts";

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
  /** The key it carried: a bearer token, else `x-api-key`, else `x-goog-api-key`. */
  key?: string;
}

/** Options of `startFakeUpstream`. */
export interface FakeUpstreamOptions {
  /** Tags replies: `fake:<name> says <last user text>`. Default `upstream`. */
  name?: string;
  /** Ids listed by `GET /v1/models`. Default `["fake-model"]`. */
  models?: string[];
  /** A behaviour for every request, or a script of them (see Plan). */
  behaviour?: Plan;
  /** Clock in milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** A running fake upstream. */
export interface FakeUpstream {
  name: string;
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:1234/v1` (the TCP front's). */
  url: string;
  /** Every request received, in order (a reset one too). */
  requests: RecordedRequest[];
  /** The behaviour of the requests from now on (see Plan); restarts `times` counts. */
  setBehaviour(plan: Plan): void;
  /** Resolves with the `count`th request (from 1) once it was received, its body read. */
  received(count: number): Promise<RecordedRequest>;
  /** Resolves once `event` happened `count` times in all (default 1). */
  reached(event: FakeEvent, count?: number): Promise<void>;
  /** Resolves once a stream or body first waits on a gate: `reached("stall")`. */
  readonly stalled: Promise<void>;
  /** Opens every stall waiting without a gate of its own (later ones wait again). */
  release(): void;
  /** Stops the server, releasing hung requests and aborting open streams. */
  close(): Promise<void>;
}

const PROTOCOL_BY_PATH: Record<string, WireProtocol> = {
  "/v1/chat/completions": "chat",
  "/v1/responses": "responses",
  "/v1/messages": "messages",
};

/** Gemini's methods: `…/models/{model}:{method}` under any API version. */
const GEMINI_PATH = /\/models\/([^/]+):(generateContent|streamGenerateContent|countTokens)$/;

/** What a Gemini path says: the model, and whether the answer streams. */
interface PathRoute {
  model: string;
  stream: boolean;
}

/** Starts a fake upstream on 127.0.0.1 with a free port. */
export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const name = options.name ?? "upstream";
  const models = options.models ?? ["fake-model"];
  const now = options.now ?? Date.now;
  const requests: RecordedRequest[] = [];
  const tally = new Tally();
  let next = scriptOf(options.behaviour ?? {});
  let repliesSent = 0;
  let release = Promise.withResolvers<void>();
  const closing = Promise.withResolvers<void>();
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  let closed = false;
  const play = { tally, open, closing: closing.promise };

  const replyTo = (body: Record<string, unknown>, current: Behaviour): FakeReply => {
    if (current.respond) return current.respond(body);
    if (current.replies?.length) {
      return current.replies[Math.min(repliesSent++, current.replies.length - 1)]!;
    }
    if (current.answer !== undefined) {
      return { ...current.reply, text: continuation(current.answer, trailingAssistantText(body)) };
    }
    return { text: `fake:${name} says ${lastUserText(body)}`, ...current.reply };
  };

  const relayed = (
    protocol: FakeWire,
    body: Record<string, unknown>,
    current: Behaviour,
    route?: PathRoute,
  ) => {
    const stream = route ? route.stream : body.stream === true;
    const reply = replyTo(body, current);
    const wire = WIRES[protocol];
    const usage = current.omitUsage ? undefined : usageOf(body, reply, {
      cached: current.cachedTokens,
      cacheWrite: current.cacheWriteTokens,
    });
    const context: WireContext = {
      model: route?.model ??
        (typeof body.model === "string" ? body.model : models[0] ?? "fake-model"),
      id: providerId(wire.prefix),
      created: Math.floor(now() / 1000),
      usage,
      request: body,
    };
    const plan: PlanContext = {
      name,
      errorFrame: (sequence) => streamErrorFrame(protocol, current, sequence, context),
      released: () => release.promise,
    };
    if (!stream) {
      const text = JSON.stringify(wire.body(reply, context));
      if (current.malformed) return json(text.slice(0, Math.ceil(text.length / 2)));
      const beats = planWhole(text, current, plan);
      return json(beats ? playBeats(beats, play) : text);
    }
    const frames: WireFrame[] = current.transcript?.sse !== undefined
      ? [{ kind: "structure", text: current.transcript.sse }]
      : wire.stream(reply, context);
    return new Response(playBeats(planStream(frames, current, plan), play), {
      headers: { ...ids(), "content-type": "text/event-stream; charset=utf-8" },
    });
  };

  const answer = async (request: Request, url: URL, body: unknown, current: Behaviour) => {
    if (current.reset) {
      tally.add("reset");
      return new Response(null, { status: 502, headers: { [FRONT_CONTROL]: "reset" } });
    }
    if (current.hang) {
      await closing.promise;
      return errorResponse(url.pathname, { status: 503, message: "The fake upstream closed." });
    }
    if (current.error) return errorResponse(url.pathname, current.error);
    if (request.method === "GET" && url.pathname === "/v1/models") {
      return json(JSON.stringify(modelList(models)));
    }
    if (request.method !== "POST") return notFound(url.pathname);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return errorResponse(url.pathname, { status: 400, message: "The body must be JSON." });
    }
    const object = body as Record<string, unknown>;
    if (url.pathname === "/v1/messages/count_tokens") {
      if (!Array.isArray(object.messages)) {
        return errorResponse(url.pathname, { status: 400, message: "messages: Field required" });
      }
      return json(JSON.stringify({ input_tokens: countTokens(requestText(object)) }));
    }
    if (url.pathname === "/v1/embeddings") {
      const answer = embeddingsAnswer(object);
      return json(JSON.stringify(answer.body), answer.status);
    }
    const gemini = GEMINI_PATH.exec(url.pathname);
    if (gemini) return await answerGemini(url, object, current, gemini);
    const protocol = PROTOCOL_BY_PATH[url.pathname];
    if (!protocol) return notFound(url.pathname);
    if (typeof object.model !== "string") {
      return errorResponse(url.pathname, { status: 400, message: "model: Field required" });
    }
    const refusal = promptRefusal(protocol, object, current);
    if (refusal) return errorResponse(url.pathname, refusal);
    if (current.gate && object.stream !== true) {
      tally.add("stall");
      await Promise.race([current.gate, closing.promise]);
    }
    const transcript = current.transcript?.body;
    if (transcript !== undefined && object.stream !== true) {
      return json(transcript instanceof Uint8Array ? transcript : JSON.stringify(transcript));
    }
    return relayed(protocol, object, current);
  };

  /** A Gemini method: the model and streaming from the path, never a `model` in the body. */
  const answerGemini = async (
    url: URL,
    object: Record<string, unknown>,
    current: Behaviour,
    [, model, method]: RegExpExecArray,
  ) => {
    if (!Array.isArray(object.contents) || object.contents.length === 0) {
      return errorResponse(url.pathname, {
        status: 400,
        message: "* GenerateContentRequest.contents: contents is not specified",
      });
    }
    if (method === "countTokens") {
      return json(JSON.stringify({ totalTokens: countTokens(requestText(object)) }));
    }
    if (method === "streamGenerateContent" && url.searchParams.get("alt") !== "sse") {
      return errorResponse(url.pathname, { status: 400, message: "The fake streams SSE only." });
    }
    const stream = method === "streamGenerateContent";
    const refusal = promptRefusal("gemini", object, current);
    if (refusal) return errorResponse(url.pathname, refusal);
    if (current.gate && !stream) {
      tally.add("stall");
      await Promise.race([current.gate, closing.promise]);
    }
    const transcript = current.transcript?.body;
    if (transcript !== undefined && !stream) {
      return json(transcript instanceof Uint8Array ? transcript : JSON.stringify(transcript));
    }
    return relayed("gemini", object, current, { model: decodeURIComponent(model!), stream });
  };

  // onListen also silences Deno's "Listening on" line.
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const onListen = (addr: Deno.NetAddr) => listening.resolve(addr);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen }, async (request) => {
    const current = next();
    const url = new URL(request.url);
    const body = await readBody(request);
    const headers = Object.fromEntries(request.headers);
    const key = /^Bearer (.+)$/i.exec(headers.authorization ?? "")?.[1] ?? headers["x-api-key"] ??
      headers["x-goog-api-key"];
    const { method } = request;
    requests.push({ method, path: url.pathname, search: url.search, headers, body, key });
    tally.add("request");
    return await answer(request, url, body, current);
  });

  const front = startTcpFront((await listening.promise).port);
  return {
    name,
    url: `http://127.0.0.1:${front.port}/v1`,
    requests,
    setBehaviour(plan: Plan) {
      next = scriptOf(plan);
      repliesSent = 0;
    },
    async received(count: number) {
      await tally.reached("request", count);
      return requests[count - 1]!;
    },
    reached: (event, count = 1) => tally.reached(event, count),
    get stalled() {
      return tally.reached("stall");
    },
    release() {
      release.resolve();
      release = Promise.withResolvers<void>();
    },
    async close() {
      if (closed) return;
      closed = true;
      closing.resolve();
      // Deno.serve logs each errored body: expected noise in tests that close mid-stream.
      for (const stream of open) stream.error(new Error(`fake upstream ${name} closed`));
      open.clear();
      await server.shutdown();
      await front.close();
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

/** A JSON answer: `body` is the JSON text (or its bytes, or a stream of them). */
function json(
  body: string | Uint8Array | ReadableStream<Uint8Array>,
  status = 200,
  headers: Record<string, string> = {},
  requestIds = ids(),
): Response {
  return new Response(body as BodyInit, {
    status,
    headers: { ...requestIds, ...headers, "content-type": "application/json" },
  });
}

function notFound(path: string): Response {
  return errorResponse(path, { status: 404, message: `Unknown path ${path}.` });
}

/** An error as the provider of the path would send it. */
function errorResponse(path: string, error: FakeError): Response {
  const protocol = path.startsWith("/v1/messages")
    ? "messages"
    : GEMINI_PATH.test(path)
    ? "gemini"
    : PROTOCOL_BY_PATH[path] ?? "chat";
  const requestIds = ids();
  const body = errorBody(protocol, error, requestIds["request-id"]!);
  return json(JSON.stringify(body), error.status, error.headers, requestIds);
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
