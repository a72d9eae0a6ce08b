/**
 * One admitted embeddings request's exchange (design.md, `POST /v1/embeddings`): held for
 * its input tokens alone (an embedding has no output), sent to the model's channels that
 * embed (chat channels, `POST {base_url}/embeddings`, and the echo) with failover as any
 * request, answered with the upstream's body as it came, and settled by the upstream's
 * `prompt_tokens` (counted here when it reports none) at the model's `input_price`.
 */
import { holdInputTokens } from "../billing/estimate.ts";
import type { ChannelConfig } from "../config/schema.ts";
import type { Admission } from "../limits/limiter.ts";
import { serverTiming } from "../observability/server_timing.ts";
import { embeddingsUsage, type ParsedEmbeddings } from "../protocols/chat/embeddings.ts";
import { protocolOf } from "../protocols/index.ts";
import { withTopLevelString } from "../protocols/json_splice.ts";
import type { RoutePlan } from "../routing/router.ts";
import { loadTokenCounter } from "../tokens/token_count.ts";
import { embeddingInputTokens } from "../upstream/echo_embeddings.ts";
import type { AttemptSource } from "./attempts.ts";
import { readWhole } from "./commit.ts";
import type { ClientSide, ExchangeDeps } from "./exchange.ts";
import { failureReport, requestAttempts, timeoutsOf } from "./relay_request.ts";
import { answerLimitsOf } from "./send.ts";
import { Settlement } from "./settle.ts";

/** Whether a channel serves embeddings: its upstream has the endpoint, or it is the echo. */
export function embeds(channel: ChannelConfig): boolean {
  if (channel.protocol === "echo") return true;
  return protocolOf(channel.protocol).upstream.embeddingsPath !== undefined;
}

/** An admitted embeddings request. */
export interface AdmittedEmbeddings {
  request: ParsedEmbeddings;
  /** The client's body as it came. */
  raw: Uint8Array;
  plan: RoutePlan;
  admission: Admission;
}

/** The rest of the flow: hold, the attempts with failover, the answer, settlement. */
export async function embed(
  deps: ExchangeDeps,
  client: ClientSide,
  { request, raw, plan, admission }: AdmittedEmbeddings,
): Promise<Response> {
  const { config, record, requestId } = client;
  const model = request.fields.model;
  const chat = protocolOf("chat");
  const hold = await deps.accounting.hold({
    requestId,
    principal: client.principal,
    config,
    entry: "embeddings",
    model,
    pricedModel: plan.models[0],
    stream: false,
    inputTokens: holdInputTokens(raw.byteLength),
    // Nearly every byte of an embeddings body is input.
    likelyInputTokens: holdInputTokens(raw.byteLength),
    maxOutputTokens: 0,
  });
  if (hold.reserved) deps.metrics.holdTaken();
  const settlement = new Settlement({
    hold,
    admission,
    record,
    metrics: deps.metrics,
    entry: chat,
    body: request.body,
  });
  const attempts = requestAttempts(deps, config, client.signal, chat.overloadedStatus, {
    onFailed: failureReport(deps, requestId),
  });
  const embedding: AttemptSource = {
    next() {
      for (let attempt = plan.next(); attempt; attempt = plan.next()) {
        if (embeds(attempt.channel)) return attempt;
        plan.release(attempt);
      }
      return undefined;
    },
    fail: plan.fail,
    failOnce: plan.failOnce,
    succeed: plan.succeed,
    release: plan.release,
  };
  const upstreamStart = performance.now();
  const tried = await attempts.run(embedding, {
    send: (attempt) => {
      const mapped = attempt.upstreamModel === model
        ? raw
        : withTopLevelString(raw, "model", attempt.upstreamModel);
      return deps.sender({
        attempt,
        operation: "embeddings",
        entry: chat,
        body: mapped ? request.body : { ...request.body, model: attempt.upstreamModel },
        raw: mapped,
        clientHeaders: client.headers,
        search: "",
        stream: false,
        connectMs: timeoutsOf(config, attempt).connect,
        limits: answerLimitsOf(config),
      });
    },
    read: ({ attempt, exchange, response }) =>
      readWhole(exchange, response, timeoutsOf(config, attempt)),
  });
  record.upstreamMs += performance.now() - upstreamStart;
  if (!tried.ok) {
    settlement.settle({ status: "failed", reason: tried.error.message }, attempts.records);
    throw tried.error;
  }
  const { attempt, exchange, record: served, value } = tried;
  exchange.finish();
  record.channel = attempt.channel.name;
  served.outcome = "ok";
  const reported = embeddingsUsage(value.json);
  const usage = reported ?? {
    input_tokens: embeddingInputTokens(request.fields.input, await loadTokenCounter()),
    output_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
  };
  await settlement.bill(served, { status: "ok", usage, outputText: () => "" });
  if (!reported) served.estimated = true;
  settlement.settle({ status: "ok" }, attempts.records, served);
  return new Response(value.bytes, {
    headers: {
      "content-type": "application/json",
      "server-timing": serverTiming(record),
      "x-tollgate-model": attempt.model,
      "x-tollgate-attempts": String(attempts.count),
    },
  });
}
