/**
 * A stream rescued (design.md "Failover"): after its content went out, a stream cut,
 * stalled or malformed inside text is continued on a channel that accepts a prefill
 * (the model's other channels, then the same channel, then the fallbacks): the
 * conversation plus the text sent so far (trailing whitespace stripped) goes as a
 * trailing assistant turn, and the continuation flows on through the client's encoder.
 * The cut attempt is billed for what it delivered, the rescue for its own usage.
 */
import { holdInputTokens } from "../billing/estimate.ts";
import { coverAttempt, type RelayRequest, takesPrefill, upstreamOf } from "./relay_request.ts";
import type { AttemptSource } from "./attempts.ts";
import { readLeg } from "./leg.ts";
import { attemptEnded } from "../observability/attempt_times.ts";
import { redactorOf } from "../config/redact.ts";
import { addressOf, attemptReason } from "./reason.ts";
import type { Cut, Leg } from "./stream.ts";

const ENCODER = new TextEncoder();

/** The leg that continues the answer after `cut`, or undefined when none can. */
export async function rescue(relay: RelayRequest, cut: Cut): Promise<Leg | undefined> {
  const { config, settlement, attempts } = relay;
  const { leg, failure } = cut;
  leg.record.outcome = "cut";
  leg.record.reason = attemptReason(failure, addressOf(leg.attempt), redactorOf(config));
  attemptEnded(leg.record);
  if (!config.failover.rescue_streams) return undefined;
  const resumed = leg.converter.resume();
  const text = resumed?.transcript.continuable();
  if (!resumed || text === undefined) return undefined;
  const candidates = relay.plan.rescues(
    leg.attempt,
    (channel, model) => takesPrefill(config, { channel, model }),
  );
  if (candidates.length === 0) return undefined;

  // What the client's answer counts so far: the first input, every leg's output.
  await settlement.bill(leg.record, {
    status: "failed",
    usage: leg.reported(),
    outputText: leg.converter.outputText,
  });
  const billed = attempts.records.filter((record) => record.usage);
  const counted = {
    input: billed[0]!.usage!,
    outputTokens: billed.reduce((sum, record) => sum + record.usage!.output_tokens, 0),
  };
  const prefill = text.trimEnd();
  const shown = text.slice(prefill.length);
  const asked = relay.request.maxOutputTokens;
  const left = asked === undefined ? undefined : Math.max(1, asked - counted.outputTokens);
  const source: AttemptSource = {
    next: () => candidates.shift(),
    fail: relay.plan.fail,
    failOnce: relay.plan.failOnce,
    succeed: relay.plan.succeed,
    release: relay.plan.release,
  };
  // The prefill goes as input: its tokens, as generously as the hold counts the request's.
  const extraInputTokens = holdInputTokens(ENCODER.encode(prefill).byteLength);
  const tried = await attempts.run(source, {
    rescue: true,
    admit: (attempt) => coverAttempt(relay, attempt, { extraInputTokens, maxOutputTokens: left }),
    send: (attempt) => {
      const upstream = upstreamOf(relay, attempt);
      return relay.send(
        attempt,
        relay.translator.prefilled(upstream, attempt.upstreamModel, prefill, left),
      );
    },
    read(answered) {
      const continued = relay.translator.continued(
        upstreamOf(relay, answered.attempt),
        resumed,
        shown,
        counted,
      );
      return readLeg(relay, answered, continued, continued.upstreamUsage);
    },
  });
  return tried.ok ? tried.value : undefined;
}
