/**
 * A token count (messages' `count_tokens`, which Claude Code calls before requests): relayed
 * to a channel of the model that speaks the entry's protocol and has the endpoint, when
 * there is one, else counted locally with the tokenizer over the body the request would
 * send to the model's first channel. It is free: no hold, no ledger row.
 */
import { estimateUsage } from "../billing/estimate.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../billing/ledger_accounting.ts";
import type { ChannelConfig } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import type { Protocol } from "../protocols/protocol.ts";
import type { RoutePlan } from "../routing/router.ts";
import { answersIn, upstreamProtocol } from "../routing/transport.ts";
import { loadTokenCounter } from "../tokens/token_count.ts";
import { createTranslator } from "../translate/translator.ts";
import type { AttemptSource } from "./attempts.ts";
import { readWhole } from "./commit.ts";
import type { ClientSide, ExchangeDeps } from "./exchange.ts";
import { requestAttempts, timeoutsOf } from "./relay_request.ts";
import { answerLimitsOf } from "./send.ts";

/** A count to make: the entry protocol's request, and the plan of its model. */
export interface TokenCount {
  entry: Protocol;
  model: string;
  /** The body whose input tokens are counted, in the entry's protocol. */
  body: Record<string, unknown>;
  plan: RoutePlan;
}

/**
 * The upstream's own answer to the count (its bytes, as they came), or the local count of
 * the request's input tokens.
 */
export async function countTokens(
  deps: Omit<ExchangeDeps, "accounting">,
  client: Omit<ClientSide, "principal" | "record" | "finished">,
  { entry, model, body, plan }: TokenCount,
): Promise<{ relayed: Uint8Array<ArrayBuffer> } | { tokens: number }> {
  const { config } = client;
  // The protocol of the first channel that cannot count tokens, if one comes up.
  let elsewhere: Protocol | undefined;
  const counting: AttemptSource = {
    next() {
      for (let attempt = plan.next(); attempt; attempt = plan.next()) {
        if (countsTokens(attempt.channel, entry)) return attempt;
        elsewhere ??= answersIn(attempt.channel, entry);
      }
      return undefined;
    },
    fail: plan.fail,
    failOnce: plan.failOnce,
    succeed: plan.succeed,
    release: plan.release,
  };
  const attempts = requestAttempts(deps, config, client.signal, entry.overloadedStatus);
  const result = await attempts.run(counting, {
    send: (attempt) =>
      deps.sender({
        attempt,
        operation: "count_tokens",
        entry,
        body: entry.passthrough({ model, stream: false, body }).body(attempt.upstreamModel),
        clientHeaders: client.headers,
        search: client.search,
        stream: false,
        connectMs: timeoutsOf(config, attempt).connect,
        limits: answerLimitsOf(config),
      }),
    read: ({ attempt, exchange, response }) =>
      readWhole(exchange, response, timeoutsOf(config, attempt)),
  });
  if (result.ok) {
    result.exchange.finish();
    return { relayed: result.value.bytes };
  }
  if (attempts.count > 0) throw result.error;

  const target = elsewhere ?? entry;
  const translator = createTranslator({
    entry,
    request: { model, stream: false, body },
    requestId: client.requestId,
    defaultMaxOutputTokens: config.models[model]?.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    reasoning: config.models[model]?.reasoning === true,
    inputTokensHint: () => 0,
    now: deps.now,
    drop: () => {},
  });
  let upstreamBody = body;
  try {
    upstreamBody = translator.toward(target).upstreamBody(model);
  } catch (error) {
    // Counting never refuses: what cannot be translated is counted as the client sent it.
    if (!(error instanceof GatewayError)) throw error;
  }
  const protocol = upstreamBody === body ? entry : target;
  const count = await loadTokenCounter();
  return { tokens: estimateUsage(protocol, upstreamBody, "", count).input_tokens };
}

/** Whether a channel's upstream speaks `entry`'s protocol and has its token-count endpoint. */
function countsTokens(channel: ChannelConfig, entry: Protocol): boolean {
  const upstream = upstreamProtocol(channel);
  return upstream === entry && upstream.upstream.countTokensPath !== undefined;
}
