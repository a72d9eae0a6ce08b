/**
 * An entry protocol's token count (`POST /v1/messages/count_tokens`, which Claude Code calls
 * before requests): relayed to a channel of the model that speaks the entry's protocol and
 * has the endpoint, when there is one, else counted locally with the tokenizer over the
 * body the request would send to the model's first channel. It is free: no hold, no ledger
 * row.
 */
import { estimateUsage } from "../billing/estimate.ts";
import { loadTokenCounter } from "../tokens/token_count.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../billing/ledger_accounting.ts";
import type { ChannelConfig } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import type { Protocol } from "../protocols/protocol.ts";
import { Attempts, type AttemptSource } from "../relay/attempts.ts";
import { readWhole } from "../relay/commit.ts";
import { timeoutsOf } from "../relay/relay_request.ts";
import { readJsonBody } from "./body.ts";
import { createTranslator } from "../translate/translator.ts";
import type { KeyRoute } from "./request_context.ts";
import type { RelayDeps } from "./relay.ts";
import { answersIn, upstreamProtocol } from "../routing/transport.ts";
import { answerLimitsOf } from "../relay/send.ts";

/** The count handler of `entry`, a protocol with a token-count endpoint. */
export function countTokensRoute(entry: Protocol, deps: Omit<RelayDeps, "accounting">): KeyRoute {
  const endpoint = entry.countTokens;
  if (!endpoint) throw new Error(`The ${entry.name} protocol has no token-count endpoint.`);
  return async function countTokens(context, principal) {
    const { config } = context.snapshot;
    const { requestId, request: client } = context;
    const body = await readJsonBody(context, {
      maxBytes: config.server.max_body_bytes,
      timeoutMs: config.timeouts.body,
    }, deps.clock);
    const request = endpoint.parseRequest(body.value, {});
    const plan = deps.router.plan(config, principal, request.model, entry);
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
    const attempts = new Attempts({
      clock: deps.clock,
      signals: { client: client.signal, shutdown: deps.shutdown },
      failover: config.failover,
      deadline: deps.clock.now() + config.timeouts.total,
      now: deps.now,
      random: deps.random,
      timeoutsOf: (attempt) => timeoutsOf(config, attempt),
      overloadedStatus: entry.overloadedStatus,
    });
    const result = await attempts.run(counting, {
      send: (attempt) =>
        deps.sender({
          attempt,
          operation: "count_tokens",
          entry,
          body: entry.passthrough({ ...request, stream: false }).body(attempt.upstreamModel),
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

    const target = elsewhere ?? entry;
    const translator = createTranslator({
      entry,
      request: { model: request.model, stream: false, body: request.body },
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
    const protocol = upstreamBody === request.body ? entry : target;
    const count = await loadTokenCounter();
    return Response.json(
      endpoint.answer(estimateUsage(protocol, upstreamBody, "", count).input_tokens),
    );
  };
}

/** Whether a channel's upstream speaks `entry`'s protocol and has its token-count endpoint. */
function countsTokens(channel: ChannelConfig, entry: Protocol): boolean {
  const upstream = upstreamProtocol(channel);
  return upstream === entry && upstream.upstream.countTokensPath !== undefined;
}
