/**
 * Helpers shared by the cross-module tests (sdk, passthrough, errors, routing, reload):
 * a scope that stops everything a test started, a gateway (in front of a fake) with a
 * key, SDK clients pointed at a gateway, SSE collection, a recording tap in front of an
 * upstream, and error-shape checks.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { SseEvent } from "../src/translate/sse.ts";
import type { AlarmClock } from "../src/clock/alarm_clock.ts";
import { readSse } from "../src/upstream/sse.ts";
import {
  type FakeUpstream,
  type FakeUpstreamOptions,
  startFakeUpstream,
} from "./fakes/upstream.ts";
import {
  channel,
  type ChannelOptions,
  configWith,
  databaseSection,
  startGateway,
  type TestGateway,
} from "./harness.ts";

/** What a test started; `run` stops all of it, in reverse order, however the test ends. */
export interface Scope {
  fake(options?: FakeUpstreamOptions): Promise<FakeUpstream>;
  /** A gateway on `toml`; `clock` (fakes/manual_clock.ts) moves its deadlines and pauses. */
  gateway(toml: string, options?: { clock?: AlarmClock }): Promise<TestGateway>;
  tap(target: FakeUpstream): Promise<Tap>;
}

/**
 * Runs `test` with a scope, then stops what it started: fakes first (which releases hung
 * requests, so nothing downstream waits on them), then taps, then gateways. Gateways use
 * a SQLite file of their own unless `database` gives each one a database URL.
 */
export async function withScope(
  test: (scope: Scope) => Promise<void>,
  options: { database?: () => Promise<string> } = {},
): Promise<void> {
  const fakes: FakeUpstream[] = [];
  const taps: Tap[] = [];
  const gateways: TestGateway[] = [];
  const scope: Scope = {
    async fake(options) {
      const fake = await startFakeUpstream(options);
      fakes.push(fake);
      return fake;
    },
    async gateway(toml, gatewayOptions = {}) {
      const databaseUrl = await options.database?.();
      const gateway = await startGateway(toml, { ...gatewayOptions, databaseUrl });
      gateways.push(gateway);
      return gateway;
    },
    async tap(target) {
      const tap = await startTap(target);
      taps.push(tap);
      return tap;
    },
  };
  // The test's own failure, if any, is the one reported; cleanup failures otherwise.
  const cleanup = async () => {
    const errors: unknown[] = [];
    for (const started of [...fakes, ...taps, ...gateways]) {
      try {
        await started.close();
      } catch (error) {
        errors.push(error);
      }
    }
    return errors;
  };
  let errors: unknown[] = [];
  try {
    await test(scope);
  } finally {
    errors = await cleanup();
  }
  if (errors.length > 0) throw new AggregateError(errors, "Cleaning up the test failed");
}

/** A gateway and one key for it, made as `TestGateway.createKey` makes it. */
export interface GatewayWithKey {
  gateway: TestGateway;
  id: string;
  secret: string;
  account: string;
}

/**
 * Starts a gateway on the usual config, `configWith(channels, extra)`, and makes a key (of a
 * fresh unlimited account) for it.
 */
export async function gatewayWithKey(
  s: Scope,
  channels: string,
  extra?: string,
): Promise<GatewayWithKey> {
  const gateway = await s.gateway(configWith(channels, extra));
  return { gateway, ...await gateway.createKey() };
}

/**
 * Starts a fake upstream, then a gateway (the usual `configWith` config) whose one channel
 * `route` goes to that fake, and makes a key for it.
 */
export async function channelToFake(
  s: Scope,
  route: Omit<ChannelOptions, "baseUrl">,
  fakeOptions?: FakeUpstreamOptions,
): Promise<GatewayWithKey & { fake: FakeUpstream }> {
  const fake = await s.fake(fakeOptions);
  const started = await gatewayWithKey(s, channel({ ...route, baseUrl: fake.url }));
  return { fake, ...started };
}

/** An OpenAI SDK client for the gateway, without retries (a retry would hide a failure). */
export function openaiClient(gateway: TestGateway, key: string): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: gateway.baseUrl, maxRetries: 0 });
}

/** How an Anthropic SDK client sends its key. */
export type AnthropicAuth = "x-api-key" | "bearer";

/**
 * An Anthropic SDK client for the gateway root. The SDK sends `apiKey` as a Bearer token
 * since 1.x, so `x-api-key` is set as a default header with no SDK credential at all.
 * `sent` records the headers of every request the client made.
 */
export function anthropicClient(
  gateway: TestGateway,
  key: string,
  auth: AnthropicAuth,
): { client: Anthropic; sent: Headers[]; urls: string[] } {
  const sent: Headers[] = [];
  const urls: string[] = [];
  const recordingFetch: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    sent.push(request.headers);
    urls.push(request.url);
    return fetch(request);
  };
  const common = { baseURL: gateway.url, maxRetries: 0, fetch: recordingFetch };
  const client = auth === "bearer"
    ? new Anthropic({ ...common, apiKey: null, authToken: key })
    : new Anthropic({
      ...common,
      apiKey: null,
      authToken: null,
      defaultHeaders: { "x-api-key": key },
    });
  return { client, sent, urls };
}

/** Every event of an SSE response body, in order, as sent (raw `data`). */
export async function readEvents(response: Response): Promise<SseEvent[]> {
  assert.ok(response.body, "the response has no body");
  const events: SseEvent[] = [];
  for await (const event of readSse(response.body)) events.push(event);
  return events;
}

/** The events of SSE text. */
export function parseEvents(text: string): Promise<SseEvent[]> {
  return readEvents(new Response(text));
}

/** The JSON of each event's data, skipping non-JSON data such as `[DONE]`. */
export function eventJson(events: SseEvent[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const event of events) {
    try {
      out.push(JSON.parse(event.data));
    } catch {
      // [DONE]
    }
  }
  return out;
}

/** Whether a chat chunk is the usage-only chunk `include_usage` adds (no choices). */
export function isUsageChunk(event: SseEvent): boolean {
  if (event.data === "[DONE]") return false;
  const chunk = JSON.parse(event.data);
  return Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage != null;
}

/** One exchange seen by a tap: the request and the exact body the upstream sent back. */
export interface TapExchange {
  path: string;
  search: string;
  /** The request body text, exactly as the gateway sent it. */
  request: string;
  status: number;
  /** The upstream's whole response body text, as it sent it (rejects if it broke). */
  body: Promise<string>;
}

/** A recording proxy in front of a fake upstream; use `url` as a channel's base_url. */
export interface Tap {
  url: string;
  exchanges: TapExchange[];
  close(): Promise<void>;
}

/** Starts a proxy that forwards to `target` and records what it answers, byte for byte. */
export async function startTap(target: FakeUpstream): Promise<Tap> {
  const origin = new URL(target.url).origin;
  const exchanges: TapExchange[] = [];
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: (addr) => listening.resolve(addr) },
    async (request) => {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.delete("host");
      const sent = request.method === "GET" ? undefined : await request.arrayBuffer();
      const upstream = await fetch(`${origin}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: sent,
      });
      const [forClient, forRecord] = upstream.body ? upstream.body.tee() : [null, null];
      const body = forRecord ? new Response(forRecord).text() : Promise.resolve("");
      body.catch(() => {}); // a broken stream is the test's business, not an unhandled rejection
      exchanges.push({
        path: url.pathname,
        search: url.search,
        request: sent ? new TextDecoder().decode(sent) : "",
        status: upstream.status,
        body,
      });
      return new Response(forClient, { status: upstream.status, headers: upstream.headers });
    },
  );
  const { port } = await listening.promise;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    exchanges,
    close: () => server.shutdown(),
  };
}

/** A port on 127.0.0.1 nothing listens on (bound, then released). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** The OpenAI-shape error body. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string; request_id: string };
}

/** The messages-shape error body. */
export interface MessagesErrorBody {
  type: "error";
  error: { type: string; message: string; code: string };
  request_id: string;
}

/**
 * Asserts an OpenAI-shape error: status, code, exactly the catalogue's fields, and the
 * `x-request-id` header equal to the body's request id. Returns the body.
 */
export async function assertOpenAiError(
  response: Response,
  status: number,
  code: string,
): Promise<OpenAiErrorBody> {
  const text = await response.text();
  assert.equal(response.status, status, `status of ${text}`);
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  const body = JSON.parse(text) as OpenAiErrorBody;
  assert.deepEqual(Object.keys(body), ["error"], text);
  assert.deepEqual(
    Object.keys(body.error).sort(),
    ["code", "message", "param", "request_id", "type"],
    text,
  );
  assert.equal(body.error.code, code, text);
  assert.equal(typeof body.error.message, "string");
  assert.ok(body.error.message.length > 0);
  assert.equal(typeof body.error.type, "string");
  assert.ok(body.error.request_id, "the body carries a request id");
  assert.equal(response.headers.get("x-request-id"), body.error.request_id);
  return body;
}

/** Asserts a messages-shape error like `assertOpenAiError`, with its `error.type`. */
export async function assertMessagesError(
  response: Response,
  status: number,
  code: string,
  type: string,
): Promise<MessagesErrorBody> {
  const text = await response.text();
  assert.equal(response.status, status, `status of ${text}`);
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  const body = JSON.parse(text) as MessagesErrorBody;
  assert.deepEqual(Object.keys(body).sort(), ["error", "request_id", "type"], text);
  assert.equal(body.type, "error");
  assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "type"], text);
  assert.equal(body.error.code, code, text);
  assert.equal(body.error.type, type, text);
  assert.ok(body.error.message.length > 0);
  assert.ok(body.request_id, "the body carries a request id");
  assert.equal(response.headers.get("x-request-id"), body.request_id);
  return body;
}

/** A minimal chat body. */
export function chatBody(model: string, text = "hi there", extra: Record<string, unknown> = {}) {
  return { model, messages: [{ role: "user", content: text }], ...extra };
}

/** A minimal responses body. */
export function responsesBody(
  model: string,
  text = "hi there",
  extra: Record<string, unknown> = {},
) {
  return { model, input: text, ...extra };
}

/** A minimal messages body. */
export function messagesBody(
  model: string,
  text = "hi there",
  extra: Record<string, unknown> = {},
) {
  return { model, max_tokens: 256, messages: [{ role: "user", content: text }], ...extra };
}

/** The text a fake upstream answers with. */
export function fakeSays(name: string, text = "hi there"): string {
  return `fake:${name} says ${text}`;
}

/** The assistant text of a non-stream body in any protocol. */
export function replyText(body: Record<string, unknown>): string {
  const json = body as {
    choices?: { message?: { content?: string } }[];
    output?: { content?: { text?: string }[] }[];
    content?: { text?: string }[];
  };
  if (json.choices) return json.choices[0]?.message?.content ?? "";
  if (json.output) {
    return json.output.flatMap((item) => item.content ?? []).map((c) => c.text).join("");
  }
  return (json.content ?? []).map((block) => block.text ?? "").join("");
}

/** POSTs and returns the reply text of a 200 non-stream answer (failing on anything else). */
export async function askText(
  gateway: TestGateway,
  key: string,
  path: string,
  body: unknown,
): Promise<string> {
  const response = await gateway.post(path, key, body);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return replyText(JSON.parse(text));
}

/**
 * Rewrites a gateway's config file atomically (write a sibling, rename over), so the
 * file watcher, which runs beside the test's own reloads, never reads a half-written file.
 */
export async function replaceConfig(gateway: TestGateway, toml: string): Promise<void> {
  const temporary = `${gateway.configPath}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temporary, `${databaseSection(gateway.dir)}\n${toml}`);
  await Deno.rename(temporary, gateway.configPath);
}

/** Checks `condition` every `everyMs` until it holds; fails after `withinMs`. */
export async function poll(
  condition: () => boolean | Promise<boolean>,
  what: string,
  withinMs: number,
  everyMs = 50,
): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`Timed out after ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
