/**
 * One admitted request's exchange with its upstreams (design.md's flow from the hold on):
 * the hold, the translator toward each channel's protocol, the attempts with failover, the
 * answer (whole, or streamed with its rescues) and its settlement. The entry point's
 * handler (api/relay.ts) hands the request over once it is admitted, and answers with the
 * response this makes.
 */
import type { Principal } from "../auth/principal.ts";
import type { Accounting } from "../billing/accounting.ts";
import { holdInputTokens, likelyInputTokens } from "../billing/estimate.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../billing/ledger_accounting.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import type { ShutdownWatch } from "../clock/shutdown_watch.ts";
import type { Config } from "../config/schema.ts";
import { redactorOf } from "../config/redact.ts";
import { takesLonger } from "../limits/admit.ts";
import type { Admission } from "../limits/limiter.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { RequestRecord } from "../observability/record.ts";
import type { Protocol } from "../protocols/protocol.ts";
import type { EntryRequest } from "../protocols/types.ts";
import type { RoutePlan } from "../routing/router.ts";
import type { StoredTurn } from "../stored/stored_responses.ts";
import { createTranslator, type Translator } from "../translate/translator.ts";
import type { Send } from "../upstream/call.ts";
import type { ClientHeaders } from "../upstream/request.ts";
import { answerStream } from "./answer_stream.ts";
import { answerWhole } from "./answer_whole.ts";
import {
  failureReport,
  type RelayRequest,
  requestAttempts,
  timeoutsOf,
  upstreamOf,
} from "./relay_request.ts";
import { answerLimitsOf, type SendOptions } from "./send.ts";
import { Settlement } from "./settle.ts";

/** What every exchange of the app is made with. */
export interface ExchangeDeps {
  accounting: Accounting;
  sender: (options: SendOptions) => Send;
  log: Logger;
  now: () => number;
  /** Jitter of the pauses before retries. */
  random: () => number;
  /** Over when the shutdown grace period is: requests still running are ended. */
  shutdown?: ShutdownWatch;
  metrics: Metrics;
  /** The clock of deadlines, keep-alives and retry pauses: one timer for all. */
  clock: AlarmClock;
}

/** The client's side of an exchange: who asked, with what, and what is reported of it. */
export interface ClientSide {
  principal: Principal;
  requestId: string;
  /** The config the request started with. */
  config: Config;
  record: RequestRecord;
  /** Its header fields: those forwarded upstream are read from them. */
  headers: ClientHeaders;
  /** Its query with its `?`, or "" (the messages protocol's `?beta=true` goes along). */
  search: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Reports the request once it is over (a stream's, when the stream ends). */
  finished: () => void;
}

/** An admitted request, as the exchange takes it on. */
export interface Admitted {
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
export async function exchange(
  deps: ExchangeDeps,
  client: ClientSide,
  admitted: Admitted,
): Promise<Response> {
  const { entry, request, raw, admission, plan } = admitted;
  const { metrics } = deps;
  const { config, record, requestId } = client;
  const translator = translatorFor(deps, requestId, config, admitted);
  const hold = await deps.accounting.hold({
    requestId,
    principal: client.principal,
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
  const attempts = requestAttempts(deps, config, client.signal, entry.overloadedStatus, {
    // The upstream found the request too long: on to a model with a larger window.
    tooLong: (attempt) =>
      Promise.resolve(
        plan.keepModels((model) => takesLonger(config, admitted.fits, attempt.model, model)),
      ),
    onFailed: failureReport(deps, requestId),
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
      const common = {
        attempt,
        operation: "answer" as const,
        entry,
        clientHeaders: client.headers,
        search: client.search,
        stream: request.stream || body !== undefined,
        connectMs: timeoutsOf(config, attempt).connect,
        limits: answerLimitsOf(config),
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
  return await answerStream(relay, keepaliveOf(entry), client.finished);
}

const ENCODER = new TextEncoder();
/** Each entry protocol's keep-alive, encoded once for all of its streams. */
const KEEPALIVES = new WeakMap<Protocol, Uint8Array>();

function keepaliveOf(entry: Protocol): Uint8Array {
  let bytes = KEEPALIVES.get(entry);
  if (!bytes) KEEPALIVES.set(entry, bytes = ENCODER.encode(entry.keepalive));
  return bytes;
}

/** The translator of a request; its options' callbacks keep only what they use. */
function translatorFor(
  deps: ExchangeDeps,
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
    redact: redactorOf(config),
    drop: (what, why) =>
      deps.log.debug("dropped in translation", { request_id: requestId, field: what, why }),
  });
}
