/**
 * POST /v1/messages/count_tokens (Claude Code calls it before requests): relayed to
 * a messages channel of the model when there is one, else counted locally with the
 * tokenizer over the body the request would send to the model's first channel. It is
 * free: no hold, no ledger row.
 */
import { estimateUsage } from "../billing/estimate.ts";
import { loadTokenCounter } from "../tokens/token_count.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../billing/ledger_accounting.ts";
import type { EntryProtocol } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { parseCountTokensRequest } from "../protocols/messages/index.ts";
import { Attempts, type AttemptSource } from "../relay/attempts.ts";
import { readWhole } from "../relay/commit.ts";
import { timeoutsOf } from "../relay/relay_request.ts";
import { readJsonBody } from "../relay/body.ts";
import { createTranslator } from "../translate/translator.ts";
import type { KeyRoute } from "../middleware/request_context.ts";
import type { RelayDeps } from "./relay.ts";
import { answersIn, isEcho } from "../upstream/transport.ts";
import type { ChannelConfig } from "../config/schema.ts";
import { protocolOf } from "../protocols/index.ts";
import { answerLimitsOf } from "../upstream/send.ts";

/** The count_tokens handler. */
export function countTokensRoute(deps: Omit<RelayDeps, "accounting">): KeyRoute {
  return async function countTokens(context, principal) {
    const { config } = context.snapshot;
    const { requestId, request: client } = context;
    const body = await readJsonBody(context, {
      maxBytes: config.server.max_body_bytes,
      timeoutMs: config.timeouts.body,
    }, deps.clock);
    const request = parseCountTokensRequest(body.value);
    const plan = deps.router.plan(config, principal, request.model, "messages");
    // The protocol of the first channel that cannot count tokens, if one comes up.
    let elsewhere: EntryProtocol | undefined;
    const messagesChannels: AttemptSource = {
      next() {
        for (let attempt = plan.next(); attempt; attempt = plan.next()) {
          if (countsTokens(attempt.channel)) return attempt;
          elsewhere ??= answersIn(attempt.channel, "messages");
        }
        return undefined;
      },
      fail: plan.fail,
      failOnce: plan.failOnce,
      succeed: plan.succeed,
      release: plan.release,
    };
    const attempts = new Attempts({
      clock: deps.clock,
      signals: { client: client.signal, shutdown: deps.shutdown },
      failover: config.failover,
      deadline: deps.clock.now() + config.timeouts.total,
      now: deps.now,
      random: deps.random,
      timeoutsOf: (attempt) => timeoutsOf(config, attempt),
      overloadedStatus: 529,
    });
    const result = await attempts.run(messagesChannels, {
      send: (attempt) =>
        deps.sender({
          attempt,
          operation: "count_tokens",
          entry: "messages",
          body: { ...request.body, model: attempt.upstreamModel },
          clientHeaders: context.headers,
          search: context.search,
          stream: false,
          connectMs: timeoutsOf(config, attempt).connect,
          limits: answerLimitsOf(config),
        }),
      read: ({ attempt, exchange, response }) =>
        readWhole(exchange, response, timeoutsOf(config, attempt)),
    });
    if (result.ok) {
      result.exchange.finish();
      return new Response(result.value.bytes, { headers: { "content-type": "application/json" } });
    }
    if (attempts.count > 0) throw result.error;

    const target = elsewhere ?? "messages";
    const translator = createTranslator({
      entry: "messages",
      request: { protocol: "messages", model: request.model, stream: false, body: request.body },
      requestId,
      defaultMaxOutputTokens: config.models[request.model]?.max_output_tokens ??
        DEFAULT_MAX_OUTPUT_TOKENS,
      reasoning: config.models[request.model]?.reasoning === true,
      inputTokensHint: () => 0,
      now: deps.now,
      drop: () => {},
    });
    let upstreamBody = request.body;
    try {
      upstreamBody = translator.toward(target).upstreamBody(request.model);
    } catch (error) {
      // Counting never refuses: what cannot be translated is counted as the client sent it.
      if (!(error instanceof GatewayError)) throw error;
    }
    const protocol = upstreamBody === request.body ? "messages" : target;
    const count = await loadTokenCounter();
    return Response.json({
      input_tokens: estimateUsage(protocol, upstreamBody, "", count).input_tokens,
    });
  };
}

/** Whether a channel's upstream has a token-count endpoint (the messages protocol's). */
function countsTokens(channel: ChannelConfig): boolean {
  return !isEcho(channel) &&
    protocolOf(answersIn(channel, "messages")).upstream.countTokensPath !== undefined;
}
