/**
 * POST /v1/chat/completions, /v1/responses and /v1/messages: the request flow of
 * design.md, one step a line. Mapping lives in translate/, transport in upstream/,
 * money in billing/; this file only orchestrates.
 */
import type { Context, Handler } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { Principal } from "../auth/principal.ts";
import type { Accounting } from "../billing/accounting.ts";
import { estimateUsage, holdInputTokens, likelyInputTokens } from "../billing/estimate.ts";
import type { ChannelConfig, Config, EntryProtocol } from "../config/schema.ts";
import type { Logger } from "../log.ts";
import type { Observer } from "../observability/observer.ts";
import { elapsedMs } from "../observability/record.ts";
import { serverTiming } from "../observability/server_timing.ts";
import { protocolOf } from "../protocols/index.ts";
import { sendWithFailover } from "../relay/failover.ts";
import type { RelayOutcome } from "../relay/outcome.ts";
import { needsEstimate, settleRequest } from "../relay/settle.ts";
import { relayStream } from "../relay/stream.ts";
import type { Attempt, RoutePlan, Router } from "../routing/router.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../billing/ledger_accounting.ts";
import { createTranslator } from "../translate/translation.ts";
import type { SendOptions } from "../upstream/send.ts";
import { searchOf } from "../upstream/request.ts";
import type { ShutdownWatch } from "../upstream/shutdown_watch.ts";
import type { Send } from "../upstream/call.ts";
import { readJsonBody } from "../relay/body.ts";
import { GatewayError } from "../errors.ts";
import type { EntryRequest } from "../protocols/types.ts";
import { type CountTokens, loadTokenCounter } from "../protocols/token_count.ts";
import { checkContextWindow } from "../limits/context_window.ts";
import type { Admission, Limiter } from "../limits/limiter.ts";

/** What the relay route is built from. */
export interface RelayDeps {
  router: Router;
  accounting: Accounting;
  limiter: Limiter;
  sender: (options: SendOptions) => Send;
  log: Logger;
  now: () => number;
  /** Over when the shutdown grace period is: requests still running are ended. */
  shutdown?: ShutdownWatch;
  observer: Observer;
}

/** The handler of one entry point. */
export function relayRoute(entry: EntryProtocol, deps: RelayDeps): Handler<AppEnv> {
  return async function relay(c) {
    const { config } = c.get("snapshot");
    const principal = c.get("principal");
    const record = c.get("record");
    record.entry = entry;
    const body = await readJsonBody(c.req.raw, config.server.max_body_bytes);
    const request = protocolOf(entry).parseRequest(body.value);
    record.model = request.model;
    const plan = deps.router.plan(config, principal, request.model, entry);
    const admission = await admit(deps.limiter, config, principal, request, body.bytes);
    if (admission.headers) c.set("limitHeaders", admission.headers);
    try {
      return await forward(c, deps, { entry, request, bodyBytes: body.bytes, plan, admission });
    } catch (error) {
      // Settlement gives the slot back on the paths that reach it; this covers the others,
      // before the refusal goes out, so that the client's next request finds the slot free.
      await admission.release();
      throw error;
    }
  };
}

/**
 * The limits step: the context window (stateless, so first: a request too long for the
 * model counts nowhere), then the rate and concurrency limits, which count it.
 */
async function admit(
  limiter: Limiter,
  config: Config,
  principal: Principal,
  request: EntryRequest,
  bodyBytes: number,
): Promise<Admission> {
  const countedInput = await checkContextWindow({
    request,
    model: config.models[request.model],
    bodyBytes,
  });
  const taken = await limiter.take({
    config,
    principal,
    model: request.model,
    inputTokens: countedInput ?? likelyInputTokens(bodyBytes),
  });
  if (taken instanceof GatewayError) throw taken;
  return taken;
}

/** An admitted request, as `forward` takes it on. */
interface Admitted {
  entry: EntryProtocol;
  request: EntryRequest;
  bodyBytes: number;
  plan: RoutePlan;
  admission: Admission;
}

/** The rest of the flow: hold, upstream with failover, the answer, settlement. */
async function forward(
  c: Context<AppEnv>,
  deps: RelayDeps,
  { entry, request, bodyBytes, plan, admission }: Admitted,
): Promise<Response> {
  const { metrics } = deps.observer;
  const { config } = c.get("snapshot");
  const principal = c.get("principal");
  const requestId = c.get("requestId");
  const record = c.get("record");
  // The token counter, loaded only when this request needs a count (see token_count.ts).
  let counter: CountTokens | undefined;
  const translator = createTranslator({
    entry,
    request,
    requestId,
    defaultMaxOutputTokens: config.models[request.model]?.max_output_tokens ??
      DEFAULT_MAX_OUTPUT_TOKENS,
    reasoning: config.models[request.model]?.reasoning === true,
    // messages' up-front input count, replaced by the real one in message_delta: from the
    // body's size, since tokenizing a coding agent's prompt costs ~12 ms a 100 KB.
    inputTokensHint: () => likelyInputTokens(bodyBytes),
    now: deps.now,
    drop: (what, why) =>
      deps.log.debug("dropped in translation", { request_id: requestId, field: what, why }),
  });
  const hold = await deps.accounting.hold({
    requestId,
    principal,
    config,
    entry,
    model: request.model,
    stream: request.stream,
    inputTokens: holdInputTokens(bodyBytes),
    likelyInputTokens: likelyInputTokens(bodyBytes),
    maxOutputTokens: request.maxOutputTokens,
  });
  if (hold.reserved) metrics.holdTaken();

  const search = searchOf(c.req.url);
  const timeoutsOf = (attempt: Attempt) => ({ ...config.timeouts, ...attempt.channel.timeouts });
  const translationOf = (attempt: Attempt) =>
    translator.toward(upstreamProtocol(attempt.channel, entry));
  const settle = (outcome: RelayOutcome, attempts: number, attempt?: Attempt) => {
    const written = settleRequest({
      hold,
      log: deps.log,
      metrics,
      record,
      outcome,
      attempts,
      channel: attempt?.channel.name,
      upstreamModel: attempt?.upstreamModel,
      estimate: () => estimateUsage(entry, request.body, outcome.outputText(), counter!),
    });
    // tpm counts the output billed; the concurrency slot is free once the request ended.
    void admission.settle(record.usage?.output_tokens ?? 0);
    void admission.release();
    return written;
  };

  const upstreamStart = performance.now();
  const result = await sendWithFailover({
    plan,
    entry,
    stream: request.stream,
    signals: { client: c.req.raw.signal, shutdown: deps.shutdown },
    timeoutsOf,
    upstreamOf: (attempt) => translationOf(attempt).upstream,
    send: (attempt) =>
      deps.sender({
        attempt,
        operation: translationOf(attempt).upstream,
        entry,
        body: translationOf(attempt).upstreamBody(attempt.upstreamModel),
        clientHeaders: c.req.raw.headers,
        search,
        stream: request.stream,
        connectMs: timeoutsOf(attempt).connect,
      }),
    onAttemptFailed: (attempt, failure) => {
      metrics.attemptFailed(attempt.channel.name, failure.kind);
      deps.log.warn("upstream attempt failed", {
        request_id: requestId,
        channel: attempt.channel.name,
        kind: failure.kind,
        status: failure.status,
        message: failure.message,
      });
    },
  });
  record.upstreamMs += performance.now() - upstreamStart;

  // Settlements are written after the answer goes out (settle.ts): none is awaited here.
  if (!result.ok) {
    void settle(
      { status: "failed", reason: result.error.message, outputText: () => "" },
      result.attempts,
      result.lastAttempt,
    );
    throw result.error;
  }
  const { served } = result;
  const translation = translationOf(served.attempt);
  record.channel = served.attempt.channel.name;
  record.attempts = served.attempts;

  if (served.body) {
    served.exchange.finish();
    const converted = translation.response(served.body.text, served.body.json);
    const outcome: RelayOutcome = {
      status: "ok",
      usage: converted.usage,
      outputText: converted.outputText,
    };
    // Awaited only when settling will count: a reported usage costs no extra turn.
    if (needsEstimate(outcome)) counter ??= await loadTokenCounter();
    void settle(outcome, served.attempts, served.attempt);
    record.firstByteMs = elapsedMs(record);
    return new Response(converted.body, {
      status: 200,
      headers: { "content-type": "application/json", "server-timing": serverTiming(record) },
    });
  }

  record.streaming = true;
  metrics.streamOpened();
  const stream = relayStream({
    exchange: served.exchange,
    events: served.stream!.events,
    first: served.stream!.first,
    keepalive: { ms: config.server.keepalive_ms, text: protocolOf(entry).keepalive },
    converter: translation.stream(),
    waited: (ms) => record.upstreamMs += ms,
    onEnd: async (outcome) => {
      if (needsEstimate(outcome)) counter ??= await loadTokenCounter();
      void settle(outcome, served.attempts, served.attempt);
      metrics.streamClosed();
      record.status = 200;
      deps.observer.finished(record, config.server);
    },
  });
  record.firstByteMs = elapsedMs(record);
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      "server-timing": serverTiming(record),
    },
  });
}

/** The protocol a channel answers an entry point in: its own, or the entry's for `echo`. */
export function upstreamProtocol(channel: ChannelConfig, entry: EntryProtocol): EntryProtocol {
  return channel.protocol === "echo" ? entry : channel.protocol;
}
