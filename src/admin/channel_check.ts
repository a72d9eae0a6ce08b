/**
 * "Test now" of a channel (`POST /admin/api/channels/{name}/test`): one small request in the
 * channel's own protocol ("Reply with the word ok.", 16 tokens at most; the request doctor
 * sends) through the upstream client, with the channel's first key, URL and headers, under
 * its timeouts (30 s at most). Its answer or its error comes back as JSON. Nothing is held,
 * billed or recorded, and routing is left as it is: the channel's figures stay its clients'.
 */
import { redactorOf } from "../config/redact.ts";
import type { Config } from "../config/schema.ts";
import { ENTRY_POINT_SHAPES, type EntryPoint } from "../doctor/entry_points.ts";
import { GatewayError } from "../errors.ts";
import { protocolOf } from "../protocols/index.ts";
import { readWhole } from "../relay/commit.ts";
import { callUpstream, UpstreamFailure } from "../upstream/call.ts";
import { answerLimitsOf, createSender } from "../relay/send.ts";
import { Stop } from "../clock/stop_signal.ts";
import { answersIn } from "../routing/transport.ts";
import type { AdminDeps, ChannelCaller } from "./deps.ts";
import { invalidField } from "./errors.ts";
import { noSuchChannel } from "./channels.ts";

/** A test takes this long at most, whatever the channel's timeouts allow. */
export const CHECK_TIMEOUT_MS = 30_000;
/** The answer's text is shown up to this many characters. */
const ANSWER_CHARS = 500;

/** What a test of a channel found. */
export interface ChannelCheckJson {
  channel: string;
  protocol: string;
  /** The model asked, as the config names it, and as the channel was sent it. */
  model: string;
  upstream_model: string;
  /** Which of the channel's keys it used (1-based); null for a channel without keys. */
  key: number | null;
  ok: boolean;
  /** The upstream's HTTP status; null when it never answered. */
  status: number | null;
  /** Milliseconds to the answer's head, and to its end. */
  ttfb_ms: number | null;
  duration_ms: number;
  /** The answer's text (its beginning); null when it failed. */
  answer: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  /** What went wrong, for the person reading it; null when it answered. */
  error: string | null;
  at: string;
}

/** Sends the test request to channel `name` (its `model`, else its first); never throws for an upstream's failure. */
export async function checkChannel(
  deps: AdminDeps,
  caller: ChannelCaller | undefined,
  name: string,
  model?: string,
): Promise<ChannelCheckJson> {
  const config = deps.config();
  const channel = config.channels.find((candidate) => candidate.name === name);
  if (channel === undefined) throw noSuchChannel(deps, "Testing", name);
  if (caller === undefined) {
    throw new GatewayError(
      503,
      "channel:no_available_key",
      `Testing channel "${name}" failed: only a running gateway (tollgate serve) sends requests.`,
    );
  }
  const asked = model ?? channel.models[0]!;
  if (!channel.models.includes(asked)) {
    throw invalidField(
      "model",
      `Testing channel "${name}" failed: it does not serve model "${asked}"; ` +
        `it serves ${channel.models.map((m) => `"${m}"`).join(", ")}.`,
    );
  }
  const protocol = answersIn(channel, protocolOf("chat"));
  const upstreamModel = channel.model_map[asked] ?? asked;
  const keyIndex = channel.keys.length > 0 ? 0 : -1;
  // A channel answers in one of the entry points the doctor can phrase a request for.
  const body = ENTRY_POINT_SHAPES[protocol.name as EntryPoint].body(upstreamModel, false);
  const send = createSender(caller.client, deps.now)({
    attempt: { channel, keyIndex, key: channel.keys[0], model: asked, upstreamModel },
    operation: "answer",
    entry: protocol,
    body,
    clientHeaders: { get: () => undefined },
    search: "",
    stream: false,
    connectMs: Math.min(timeoutsOf(config, channel).connect, CHECK_TIMEOUT_MS),
    limits: answerLimitsOf(config),
  });
  const at = new Date(deps.now()).toISOString();
  const result = {
    channel: name,
    protocol: channel.protocol,
    model: asked,
    upstream_model: upstreamModel,
    key: keyIndex < 0 ? null : keyIndex + 1,
    at,
  };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let ttfb: number | null = null;
  try {
    const timeouts = timeoutsOf(config, channel);
    const { exchange, response } = await callUpstream(
      send,
      timeouts,
      { client: new Stop() },
      caller.clock,
      redactorOf(config),
    );
    ttfb = elapsed();
    try {
      const answer = await readWhole(exchange, response, timeouts).catch((error) => {
        // The answer is not taken: its connection is closed rather than left unread.
        if (error instanceof UpstreamFailure) exchange.abort(error);
        throw error;
      });
      const usage = protocol.usageFromResponse(answer.json);
      return {
        ...result,
        ok: true,
        status: response.status,
        ttfb_ms: ttfb,
        duration_ms: elapsed(),
        answer: protocol.responseText(answer.json).slice(0, ANSWER_CHARS),
        input_tokens: usage?.input_tokens ?? null,
        output_tokens: usage?.output_tokens ?? null,
        error: null,
      };
    } finally {
      exchange.finish();
    }
  } catch (error) {
    if (!(error instanceof UpstreamFailure)) throw error;
    return {
      ...result,
      ok: false,
      status: error.status ?? null,
      ttfb_ms: ttfb,
      duration_ms: elapsed(),
      answer: null,
      input_tokens: null,
      output_tokens: null,
      error: error.upstreamMessage
        ? `${error.message} ${error.upstreamMessage}`.slice(0, ANSWER_CHARS)
        : error.message,
    };
  }
}

/** The channel's timeouts (the config's, its own overrides), none above CHECK_TIMEOUT_MS. */
function timeoutsOf(config: Config, channel: Config["channels"][number]) {
  const timeouts = { ...config.timeouts, ...channel.timeouts };
  const capped = (ms: number) => Math.min(ms, CHECK_TIMEOUT_MS);
  return {
    ...timeouts,
    connect: capped(timeouts.connect),
    first_byte: capped(timeouts.first_byte),
    idle: capped(timeouts.idle),
    total: capped(timeouts.total),
  };
}
