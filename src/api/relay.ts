/**
 * POST /v1/chat/completions, /v1/responses and /v1/messages: the request flow of
 * design.md, one step a line. Mapping lives in translate/, transport in upstream/,
 * money in billing/, the exchange with the upstreams in relay/; this file only
 * orchestrates.
 */
import type { Principal } from "../auth/principal.ts";
import type { Accounting } from "../billing/accounting.ts";
import { holdInputTokens, likelyInputTokens } from "../billing/estimate.ts";
import type { Config } from "../config/schema.ts";
import type { Logger } from "../log.ts";
import type { Observer } from "../observability/observer.ts";
import type { Protocol } from "../protocols/index.ts";
import { Attempts } from "../relay/attempts.ts";
import { answerStream } from "../relay/answer_stream.ts";
import { answerWhole } from "../relay/answer_whole.ts";
import { type RelayRequest, timeoutsOf, upstreamOf } from "../relay/relay_request.ts";
import { Settlement } from "../relay/settle.ts";
import type { RoutePlan, Router } from "../routing/router.ts";
import { conversationName } from "../routing/conversation.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../billing/ledger_accounting.ts";
import { createTranslator, type Translator } from "../translate/translator.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import { answerLimitsOf, type SendOptions } from "../relay/send.ts";
import type { ShutdownWatch } from "../clock/shutdown_watch.ts";
import type { Send } from "../upstream/call.ts";
import { readJsonBody } from "./body.ts";
import type { KeyRoute, RequestContext } from "./request_context.ts";
import type { EntryRequest } from "../protocols/types.ts";
import { admit, takesLonger } from "../limits/admit.ts";
import type { Admission, Limiter } from "../limits/limiter.ts";
import type { StoredResponses, StoredTurn } from "../stored/stored_responses.ts";

/** What the relay route is built from. */
export interface RelayDeps {
  router: Router;
  accounting: Accounting;
  limiter: Limiter;
  sender: (options: SendOptions) => Send;
  log: Logger;
  now: () => number;
  /** Jitter of the pauses before retries. */
  random: () => number;
  /** Over when the shutdown grace period is: requests still running are ended. */
  shutdown?: ShutdownWatch;
  observer: Observer;
  /** The clock of deadlines, keep-alives and retry pauses: one timer for all. */
  clock: AlarmClock;
  /** Stored responses: given to the responses entry point only. */
  responses?: StoredResponses;
}

/** The handler of one entry point. */
export function relayRoute(entry: Protocol, deps: RelayDeps): KeyRoute {
  // The entry point's keep-alive, encoded once for all of its streams.
  const keepalive = ENCODER.encode(entry.keepalive);
  return async function relay(context, principal) {
    const { config } = context.snapshot;
    const { record } = context;
    record.entry = entry.name;
    const body = await readJsonBody(context, {
      maxBytes: config.server.max_body_bytes,
      timeoutMs: config.timeouts.body,
    }, deps.clock);
    const parsed = entry.parseRequest(body.value, {});
    record.model = parsed.model;
    const turn = await deps.responses?.begin(config, principal, parsed.body);
    // A resolved conversation is what the channel is sent, and what is billed.
    const request = turn?.resolved ? { ...parsed, body: turn.body } : parsed;
    const raw = turn?.resolved ? ENCODER.encode(JSON.stringify(turn.body)) : body.raw;
    // Named from what goes upstream: every turn of a stored chain starts as its first did.
    const conversation = conversationName(request, context.headers, principal.id);
    const plan = deps.router.plan(config, principal, request.model, entry, conversation);
    const limits = await admit(deps.limiter, config, principal, request, raw.byteLength, plan);
    const { admission } = limits;
    if (admission.headers) context.limitHeaders = admission.headers;
    try {
      const admitted: Admitted = {
        entry,
        request,
        echo: turn?.resolved ? parsed.body : undefined,
        raw,
        plan,
        admission,
        turn,
        conversation,
        inputTokens: limits.inputTokens,
        fits: limits.fits,
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
  entry: Protocol;
  request: EntryRequest;
  /** The body as it goes upstream. */
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
  /** The models of its chain whose context window it fits. */
  fits: ReadonlySet<string>;
}

/** The rest of the flow: hold, the answer (whole or streamed) with failover, settlement. */
async function forward(
  context: RequestContext,
  principal: Principal,
  deps: RelayDeps,
  admitted: Admitted,
  keepalive: Uint8Array,
): Promise<Response> {
  const { entry, request, raw, admission, plan } = admitted;
  const { metrics } = deps.observer;
  const { config } = context.snapshot;
  const { record, requestId } = context;
  const translator = translatorFor(deps, requestId, config, admitted);
  const hold = await deps.accounting.hold({
    requestId,
    principal,
    config,
    entry: entry.name,
    model: request.model,
    pricedModel: plan.models[0],
    stream: request.stream,
    inputTokens: holdInputTokens(raw.byteLength),
    likelyInputTokens: likelyInputTokens(raw.byteLength),
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
  const attempts = new Attempts({
    clock: deps.clock,
    signals: { client: context.request.signal, shutdown: deps.shutdown },
    failover: config.failover,
    deadline: deps.clock.now() + config.timeouts.total,
    now: deps.now,
    random: deps.random,
    timeoutsOf: (attempt) => timeoutsOf(config, attempt),
    overloadedStatus: entry.overloadedStatus,
    // The upstream found the request too long: on to a model with a larger window.
    tooLong: (attempt) =>
      Promise.resolve(
        plan.keepModels((model) => takesLonger(config, admitted.fits, attempt.model, model)),
      ),
    onFailed: (attempt, failure) => {
      metrics.attemptFailed(attempt.channel.name, failure.kind, failure.message);
      deps.log.warn("upstream attempt failed", {
        request_id: requestId,
        channel: attempt.channel.name,
        model: attempt.model,
        kind: failure.kind,
        status: failure.status,
        message: failure.message,
      });
    },
  });
  const relay: RelayRequest = {
    entry,
    request,
    config,
    requestId,
    record,
    plan,
    attempts,
    translator,
    settlement,
    hold,
    holdInputTokens: holdInputTokens(raw.byteLength),
    turn: admitted.turn,
    clock: deps.clock,
    log: deps.log,
    metrics,
    send(attempt, body) {
      const limits = answerLimitsOf(config);
      const connectMs = timeoutsOf(config, attempt).connect;
      const common = {
        attempt,
        operation: "answer" as const,
        entry,
        clientHeaders: context.headers,
        search: context.search,
        stream: request.stream || body !== undefined,
        connectMs,
        limits,
        inputTokens: admitted.inputTokens,
      };
      if (body) return deps.sender({ ...common, body });
      const translation = translator.toward(upstreamOf(relay, attempt));
      const bytes = translation.upstreamBytes(attempt.upstreamModel, raw);
      return deps.sender({
        ...common,
        // The client's bytes unchanged: its body is the one to read (only the echo channel does).
        body: bytes === raw ? request.body : translation.upstreamBody(attempt.upstreamModel),
        raw: bytes,
      });
    },
  };
  if (!request.stream) return await answerWhole(relay);
  return await answerStream(relay, keepalive, context.finished);
}

/** The translator of a request; its options' callbacks keep only what they use. */
function translatorFor(
  deps: RelayDeps,
  requestId: string,
  config: Config,
  { entry, request, raw, echo, conversation, plan }: Admitted,
): Translator {
  const bodyBytes = raw.byteLength;
  // The first model of the chain: the one asked, or an alias's first.
  const model = config.models[plan.models[0] ?? request.model];
  return createTranslator({
    entry,
    request,
    echo,
    requestId,
    defaultMaxOutputTokens: model?.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    reasoning: model?.reasoning === true,
    // messages' up-front input count, replaced by the real one in message_delta: from the
    // body's size, since tokenizing a coding agent's long prompt costs more than the rest.
    inputTokensHint: () => likelyInputTokens(bodyBytes),
    now: deps.now,
    conversation,
    drop: (what, why) =>
      deps.log.debug("dropped in translation", { request_id: requestId, field: what, why }),
  });
}
