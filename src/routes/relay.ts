/**
 * POST /v1/chat/completions, /v1/responses and /v1/messages: the request flow of
 * design.md, one step a line. Mapping lives in translate/, transport in upstream/,
 * money in billing/; this file only orchestrates.
 */
import type { Principal } from "../auth/principal.ts";
import type { Accounting } from "../billing/accounting.ts";
import { holdInputTokens, likelyInputTokens } from "../billing/estimate.ts";
import type { Config, EntryProtocol } from "../config/schema.ts";
import type { Logger } from "../log.ts";
import type { Observer } from "../observability/observer.ts";
import { elapsedMs } from "../observability/record.ts";
import { serverTiming } from "../observability/server_timing.ts";
import { protocolOf } from "../protocols/index.ts";
import { sendWithFailover, type Served } from "../relay/failover.ts";
import type { RelayOutcome } from "../relay/outcome.ts";
import { Settlement } from "../relay/settle.ts";
import { relayStream, type StreamRelay } from "../relay/stream.ts";
import type { Attempt, RoutePlan, Router } from "../routing/router.ts";
import { conversationName } from "../routing/conversation.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../billing/ledger_accounting.ts";
import { createTranslator, type Translator } from "../translate/translator.ts";
import type { AlarmClock } from "../upstream/alarm_clock.ts";
import { answerLimitsOf, type SendOptions } from "../upstream/send.ts";
import { answersIn } from "../upstream/transport.ts";
import type { ShutdownWatch } from "../upstream/shutdown_watch.ts";
import type { Send } from "../upstream/call.ts";
import { readJsonBody } from "../relay/body.ts";
import type { KeyRoute, RequestContext } from "../middleware/request_context.ts";
import type { EntryRequest } from "../protocols/types.ts";
import { admit } from "../limits/admit.ts";
import type { Admission, Limiter } from "../limits/limiter.ts";
import type { StoredResponses, StoredTurn } from "../stored/stored_responses.ts";
import { keepQuietly } from "../stored/keep_quietly.ts";

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
  /** The clock of the exchanges' deadlines and the streams' keep-alives: one timer for all. */
  clock: AlarmClock;
  /** Stored responses: given to the responses entry point only. */
  responses?: StoredResponses;
}

/** The handler of one entry point. */
export function relayRoute(entry: EntryProtocol, deps: RelayDeps): KeyRoute {
  // The entry point's keep-alive, encoded once for all of its streams.
  const keepalive = ENCODER.encode(protocolOf(entry).keepalive);
  return async function relay(context, principal) {
    const { config } = context.snapshot;
    const { record } = context;
    record.entry = entry;
    const body = await readJsonBody(context, {
      maxBytes: config.server.max_body_bytes,
      timeoutMs: config.timeouts.body,
    }, deps.clock);
    const parsed = protocolOf(entry).parseRequest(body.value);
    record.model = parsed.model;
    const turn = await deps.responses?.begin(config, principal, parsed.body);
    // A resolved conversation is what the channel is sent, and what is billed.
    const request = turn?.resolved ? { ...parsed, body: turn.body } : parsed;
    const raw = turn?.resolved ? ENCODER.encode(JSON.stringify(turn.body)) : body.raw;
    // Named from what goes upstream: every turn of a stored chain starts as its first did.
    const conversation = conversationName(request, context.headers, principal.id);
    const plan = deps.router.plan(config, principal, request.model, entry, conversation);
    const { admission, inputTokens } = await admit(
      deps.limiter,
      config,
      principal,
      request,
      raw.byteLength,
    );
    if (admission.headers) context.limitHeaders = admission.headers;
    try {
      const admitted = {
        entry,
        request,
        echo: turn?.resolved ? parsed.body : undefined,
        bodyBytes: raw.byteLength,
        raw,
        plan,
        admission,
        turn,
        conversation,
        inputTokens,
      };
      return await forward(context, principal, deps, admitted, keepalive);
    } catch (error) {
      // Settlement gives the slot back on the paths that reach it; this covers the others,
      // before the refusal goes out, so that the client's next request finds the slot free.
      await admission.release();
      throw error;
    }
  };
}

const ENCODER = new TextEncoder();

/** An admitted request, as `forward` takes it on. */
interface Admitted {
  entry: EntryProtocol;
  request: EntryRequest;
  bodyBytes: number;
  /** The body as it goes upstream; kept only until an upstream answered. */
  raw: Uint8Array;
  /** The client's own body, when the channel is sent another (a resolved conversation). */
  echo?: Record<string, unknown>;
  plan: RoutePlan;
  admission: Admission;
  /** The stored-responses turn of a responses request. */
  turn?: StoredTurn;
  /** The request's conversation name (routing/conversation.ts). */
  conversation: string;
  /** Its input tokens, when the context-window check counted them (never counted twice). */
  inputTokens?: number;
}

/**
 * The rest of the flow: hold, upstream with failover, the answer, settlement. What
 * outlives the first byte (the translator's options, the stream's callbacks) is made in
 * functions of its own, so that a stream does not keep this function's scope (the
 * request's context, the route plan, the failover's callbacks) for as long as it runs.
 */
async function forward(
  context: RequestContext,
  principal: Principal,
  deps: RelayDeps,
  admitted: Admitted,
  keepalive: Uint8Array,
): Promise<Response> {
  const { entry, request, bodyBytes, admission } = admitted;
  const { metrics } = deps.observer;
  const { config } = context.snapshot;
  const { record, requestId } = context;
  const translator = translatorFor(deps, requestId, config, admitted);
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
  const settlement = new Settlement({
    hold,
    admission,
    record,
    metrics,
    entry,
    body: request.body,
    inputTokens: admitted.inputTokens,
  });

  const client = context.request;
  const timeoutsOf = (attempt: Attempt) => ({ ...config.timeouts, ...attempt.channel.timeouts });
  const translationOf = (attempt: Attempt) => translator.toward(answersIn(attempt.channel, entry));
  const upstreamStart = performance.now();
  const result = await sendWithFailover({
    plan: admitted.plan,
    entry,
    stream: request.stream,
    signals: { client: client.signal, shutdown: deps.shutdown },
    clock: deps.clock,
    timeoutsOf,
    upstreamOf: (attempt) => translationOf(attempt).upstream,
    send: (attempt) => {
      const translation = translationOf(attempt);
      const bytes = translation.upstreamBytes(attempt.upstreamModel, admitted.raw);
      return deps.sender({
        attempt,
        operation: "answer",
        entry,
        // The client's bytes unchanged: its body is the one to read (only the echo channel does).
        body: bytes === admitted.raw
          ? request.body
          : translation.upstreamBody(attempt.upstreamModel),
        raw: bytes,
        clientHeaders: context.headers,
        search: context.search,
        stream: request.stream,
        connectMs: timeoutsOf(attempt).connect,
        limits: answerLimitsOf(config),
        inputTokens: admitted.inputTokens,
      });
    },
    onAttemptFailed: (attempt, failure) => {
      metrics.attemptFailed(attempt.channel.name, failure.kind, failure.message);
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
  record.affinity = admitted.plan.affinity();

  // Settlements are written after the answer goes out (settle.ts): none is awaited here.
  if (!result.ok) {
    const failed: RelayOutcome = {
      status: "failed",
      reason: result.error.message,
      outputText: () => "",
    };
    void settlement.settle(failed, result.attempts, result.lastAttempt);
    throw result.error;
  }
  const { served } = result;
  const translation = translationOf(served.attempt);
  record.channel = served.attempt.channel.name;
  record.attempts = served.attempts;

  if (served.body) {
    served.exchange.finish();
    const converted = translation.response(served.body);
    const outcome: RelayOutcome = {
      status: "ok",
      usage: converted.usage,
      outputText: converted.outputText,
    };
    // It waits only to load the tokenizer, when the upstream reported no usage to bill.
    await settlement.settle(outcome, served.attempts, served.attempt);
    // Kept before it is answered, so that the client's next turn finds it on any node.
    if (admitted.turn) await keepQuietly(deps.log, requestId, admitted.turn.keepWhole(converted));
    record.firstByteMs = elapsedMs(record);
    return new Response(converted.body, {
      headers: { "content-type": "application/json", "server-timing": serverTiming(record) },
    });
  }
  record.streaming = true;
  metrics.streamOpened();
  const stream = relayStream({
    exchange: served.exchange,
    events: served.stream!.events,
    first: served.stream!.first,
    keepalive: {
      ms: config.server.keepalive_ms,
      bytes: keepalive,
      clock: deps.clock,
    },
    converter: admitted.turn ? admitted.turn.watch(translation.stream()) : translation.stream(),
    ...streamEnd(deps, settlement, context.finished, served, admitted.turn),
  });
  record.firstByteMs = elapsedMs(record);
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      "server-timing": serverTiming(record),
    },
  });
}

/** The translator of a request; its options' callbacks keep only what they use. */
function translatorFor(
  deps: RelayDeps,
  requestId: string,
  config: Config,
  { entry, request, bodyBytes, echo, conversation }: Admitted,
): Translator {
  return createTranslator({
    entry,
    request,
    echo,
    requestId,
    defaultMaxOutputTokens: config.models[request.model]?.max_output_tokens ??
      DEFAULT_MAX_OUTPUT_TOKENS,
    reasoning: config.models[request.model]?.reasoning === true,
    // messages' up-front input count, replaced by the real one in message_delta: from the
    // body's size, since tokenizing a coding agent's prompt costs ~12 ms a 100 KB.
    inputTokensHint: () => likelyInputTokens(bodyBytes),
    now: deps.now,
    conversation,
    drop: (what, why) =>
      deps.log.debug("dropped in translation", { request_id: requestId, field: what, why }),
  });
}

/** A stream's end callbacks: they hold the settlement and the attempt, not `served`. */
function streamEnd(
  deps: RelayDeps,
  settlement: Settlement,
  finished: () => void,
  { attempts, attempt }: Served,
  turn: StoredTurn | undefined,
): Pick<StreamRelay, "waited" | "onEnd"> {
  const { record } = settlement;
  return {
    waited: (ms) => record.upstreamMs += ms,
    onEnd: async (outcome) => {
      await settlement.settle(outcome, attempts, attempt);
      // The body closes after this: a completed stream is kept before the client sees its end.
      if (turn && outcome.status === "ok") {
        await keepQuietly(deps.log, record.requestId, turn.keepStream());
      }
      deps.observer.metrics.streamClosed();
      finished();
    },
  };
}
