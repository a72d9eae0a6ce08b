/**
 * A streamed answer: attempts until one upstream's stream reaches its first content (its
 * commit point, commit.ts), then relayed to the client (stream.ts), continued by a
 * rescue if it breaks off mid-text (rescue.ts), billed and settled when it ends. The
 * response's head goes out at commit, with the model and attempts that served it; or,
 * when nothing came for `keepalive_ms`, earlier, with keep-alives until the commit.
 */
import { requestReason } from "./reason.ts";
import { elapsedMs } from "../observability/record.ts";
import { serverTiming } from "../observability/server_timing.ts";
import { keepQuietly } from "../stored/keep_quietly.ts";
import { Stop } from "../clock/stop_signal.ts";
import type { Tried } from "./attempts.ts";
import { readLeg } from "./leg.ts";
import {
  coverAttempt,
  type RelayRequest,
  servedHeaders,
  takesPrefill,
  upstreamOf,
} from "./relay_request.ts";
import { rescue } from "./rescue.ts";
import { type Leg, relayStream } from "./stream.ts";

/** The client's streamed answer; throws the client's error when no attempt served before its head. */
export async function answerStream(
  relay: RelayRequest,
  keepalive: Uint8Array,
  finished: () => void,
): Promise<Response> {
  const { record, config, settlement } = relay;
  const upstreamStart = performance.now();
  const first = relay.attempts.run(relay.plan, {
    send: (attempt) => relay.send(attempt),
    admit: (attempt) => coverAttempt(relay, attempt),
    read(answered) {
      const { attempt } = answered;
      const translation = relay.translator.toward(upstreamOf(relay, answered.attempt));
      // Tracked only when a rescue could continue it: a transcript costs a decode an event.
      const track = config.failover.rescue_streams &&
        relay.plan.rescues(attempt, (channel, model) => takesPrefill(config, { channel, model }))
            .length > 0;
      const converter = translation.stream(attempt.upstreamModel, track);
      return readLeg(relay, answered, converter, converter.usage);
    },
  });
  const head = await committedOrSilent(relay, first);
  record.upstreamMs += performance.now() - upstreamStart;
  record.affinity = relay.plan.affinity();
  if (head !== "silent" && !head.ok) {
    settlement.settle(
      { status: "failed", reason: requestReason(head.error, relay.attempts.records) },
      relay.attempts.records,
    );
    throw head.error;
  }
  if (head !== "silent") record.channel = head.attempt.channel.name;
  record.streaming = true;
  relay.metrics.streamOpened();
  const committed = first.then((tried) => tried.ok ? tried.value : Promise.reject(tried.error));
  // Read by the body, unless the client left first: a refusal it never reads is no crash.
  committed.catch(() => {});
  const body = relayStream({
    first: committed,
    keepalive: { ms: config.server.keepalive_ms, bytes: keepalive, clock: relay.clock },
    entry: relay.entry,
    requestId: relay.requestId,
    rescue: (cut) => rescue(relay, cut),
    waited: (ms) => record.upstreamMs += ms,
    async onEnd(outcome, leg) {
      if (leg) {
        leg.record.outcome = outcome.status === "ok"
          ? "ok"
          : outcome.status === "aborted"
          ? "aborted"
          : "cut";
        if (outcome.status !== "ok") leg.record.reason = outcome.reason;
        await settlement.bill(leg.record, {
          status: outcome.status,
          usage: leg.reported(),
          outputText: leg.converter.outputText,
        });
      }
      settlement.settle(outcome, relay.attempts.records, leg?.record);
      // The body closes after this: a completed stream is kept before the client sees its end.
      if (relay.turn && outcome.status === "ok") {
        await keepQuietly(relay.log, relay.requestId, relay.turn.keepStream());
      }
      relay.metrics.streamClosed();
      finished();
    },
  });
  record.firstByteMs = elapsedMs(record);
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      "server-timing": serverTiming(record),
      ...(head === "silent" ? {} : servedHeaders(relay, head.attempt)),
    },
  });
}

/**
 * The attempts' outcome once committed (or failed), or `silent` when nothing came for
 * `keepalive_ms` first: the head then goes out, and keep-alives hold the client.
 */
async function committedOrSilent(
  relay: RelayRequest,
  first: Promise<Tried<Leg>>,
): Promise<Tried<Leg> | "silent"> {
  const ms = relay.config.server.keepalive_ms;
  if (ms === 0) return await first;
  const stop = new Stop();
  const silent = relay.clock.sleep(ms, stop).then(() => "silent" as const, () => undefined);
  try {
    const head = await Promise.race([first, silent]);
    return head ?? await first;
  } finally {
    stop.abort();
  }
}
