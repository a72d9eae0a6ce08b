/**
 * POST /v1/chat/completions, /v1/responses and /v1/messages: the request flow of
 * design.md, one step a line. Mapping lives in translate/, transport in upstream/,
 * money in billing/; this file only orchestrates.
 */
import type { Handler } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { Accounting, Hold } from "../billing/accounting.ts";
import { estimateUsage, holdInputTokens } from "../billing/estimate.ts";
import type { ChannelConfig, EntryProtocol } from "../config/schema.ts";
import { describeError, type Logger } from "../log.ts";
import { protocolOf } from "../protocols/index.ts";
import type { Usage } from "../protocols/types.ts";
import { sendWithFailover } from "../relay/failover.ts";
import type { RelayOutcome } from "../relay/outcome.ts";
import { relayStream } from "../relay/stream.ts";
import type { Attempt, Router } from "../routing/router.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../billing/ledger_accounting.ts";
import { createTranslator } from "../translate/translation.ts";
import type { SendOptions } from "../upstream/send.ts";
import type { Send } from "../upstream/call.ts";
import { readJsonBody } from "../relay/body.ts";

/** What the relay route is built from. */
export interface RelayDeps {
  router: Router;
  accounting: Accounting;
  sender: (options: SendOptions) => Send;
  log: Logger;
  now: () => number;
  /** Aborted when the shutdown grace period is over: requests still running are ended. */
  shutdownSignal?: AbortSignal;
}

/** The handler of one entry point. */
export function relayRoute(entry: EntryProtocol, deps: RelayDeps): Handler<AppEnv> {
  return async function relay(c) {
    const { config } = c.get("snapshot");
    const principal = c.get("principal");
    const requestId = c.get("requestId");
    const body = await readJsonBody(c.req.raw, config.server.max_body_bytes);
    const request = protocolOf(entry).parseRequest(body.value);
    const plan = deps.router.plan(config, principal, request.model, entry);
    const translator = createTranslator({
      entry,
      request,
      requestId,
      defaultMaxOutputTokens: config.models[request.model]?.max_output_tokens ??
        DEFAULT_MAX_OUTPUT_TOKENS,
      inputTokensHint: once(() => estimateUsage(entry, request.body, "").input_tokens),
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
      inputTokens: holdInputTokens(body.bytes),
      maxOutputTokens: request.maxOutputTokens,
    });

    const search = new URL(c.req.url).search;
    const timeoutsOf = (attempt: Attempt) => ({ ...config.timeouts, ...attempt.channel.timeouts });
    const translationOf = (attempt: Attempt) =>
      translator.toward(upstreamProtocol(attempt.channel, entry));
    const settle = (
      outcome: RelayOutcome,
      attempts: number,
      channel?: string,
      upstreamModel?: string,
    ) =>
      settleOutcome(hold, deps.log, requestId, {
        outcome,
        attempts,
        channel,
        upstreamModel,
        estimate: () => estimateUsage(entry, request.body, outcome.outputText()),
      });

    const result = await sendWithFailover({
      plan,
      entry,
      stream: request.stream,
      signals: { client: c.req.raw.signal, shutdown: deps.shutdownSignal },
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
      onAttemptFailed: (attempt, failure) =>
        deps.log.warn("upstream attempt failed", {
          request_id: requestId,
          channel: attempt.channel.name,
          kind: failure.kind,
          status: failure.status,
          message: failure.message,
        }),
    });

    if (!result.ok) {
      await settle(
        { status: "failed", reason: result.error.message, outputText: () => "" },
        result.attempts,
        result.lastAttempt?.channel.name,
        result.lastAttempt?.upstreamModel,
      );
      throw result.error;
    }
    const { served } = result;
    const translation = translationOf(served.attempt);
    const channelName = served.attempt.channel.name;

    if (served.body) {
      served.exchange.finish();
      const converted = translation.response(served.body.text, served.body.json);
      await settle(
        { status: "ok", usage: converted.usage, outputText: converted.outputText },
        served.attempts,
        channelName,
        served.attempt.upstreamModel,
      );
      return new Response(converted.body, {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    }

    const stream = relayStream({
      exchange: served.exchange,
      events: served.stream!.events,
      first: served.stream!.first,
      idleMs: timeoutsOf(served.attempt).idle,
      keepalive: { ms: config.server.keepalive_ms, text: protocolOf(entry).keepalive },
      converter: translation.stream(),
      onEnd: (outcome) =>
        settle(outcome, served.attempts, channelName, served.attempt.upstreamModel),
    });
    return new Response(stream, {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "x-accel-buffering": "no",
      },
    });
  };
}

/** The protocol a channel answers an entry point in: its own, or the entry's for `echo`. */
export function upstreamProtocol(channel: ChannelConfig, entry: EntryProtocol): EntryProtocol {
  return channel.protocol === "echo" ? entry : channel.protocol;
}

/** A function computing its value on the first call only. */
function once<T>(compute: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: compute() }).v;
}

/** Settles a request, estimating usage only where the upstream reported none; never throws. */
async function settleOutcome(
  hold: Hold,
  log: Logger,
  requestId: string,
  options: {
    outcome: RelayOutcome;
    attempts: number;
    channel?: string;
    upstreamModel?: string;
    estimate: () => Usage;
  },
): Promise<void> {
  try {
    await hold.settle({
      status: options.outcome.status,
      reason: options.outcome.reason,
      channel: options.channel,
      upstreamModel: options.upstreamModel,
      attempts: options.attempts,
      ...billedUsage(options.outcome, options.estimate),
    });
  } catch (error) {
    log.error("settlement failed", { request_id: requestId, error: describeError(error) });
  }
}

/**
 * The usage to bill: the upstream's report when the request finished; nothing when
 * it failed before producing output; and for a stream cut short, at least what was
 * produced, since the final usage report never came.
 */
export function billedUsage(
  outcome: RelayOutcome,
  estimate: () => Usage,
): { usage: Usage; estimated: boolean } {
  const reported = outcome.usage;
  if (outcome.status === "ok" && reported) return { usage: reported, estimated: false };
  if (!reported) {
    if (outcome.status === "failed" && outcome.outputText() === "") {
      return { usage: ZERO_USAGE, estimated: false };
    }
    return { usage: estimate(), estimated: true };
  }
  const estimated = estimate();
  if (reported.input_tokens > 0 && reported.output_tokens >= estimated.output_tokens) {
    return { usage: reported, estimated: false };
  }
  return {
    usage: {
      ...reported,
      input_tokens: reported.input_tokens || estimated.input_tokens,
      output_tokens: Math.max(reported.output_tokens, estimated.output_tokens),
    },
    estimated: true,
  };
}

const ZERO_USAGE = { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cache_write_tokens: 0 };
