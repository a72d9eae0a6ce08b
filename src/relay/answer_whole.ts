/**
 * A whole (non-stream) answer: attempts until one upstream's body is read (its commit
 * point), then translated for the client, billed, kept when it is a stored response, and
 * answered with the model and the attempts that served it.
 */
import { requestReason } from "./reason.ts";
import { elapsedMs } from "../observability/record.ts";
import { serverTiming } from "../observability/server_timing.ts";
import { keepQuietly } from "../stored/keep_quietly.ts";
import { readWhole } from "./commit.ts";
import {
  coverAttempt,
  type RelayRequest,
  servedHeaders,
  timeoutsOf,
  upstreamOf,
} from "./relay_request.ts";

/** The client's answer to a whole request; throws the client's error when no attempt served. */
export async function answerWhole(relay: RelayRequest): Promise<Response> {
  const { record, settlement } = relay;
  const upstreamStart = performance.now();
  const tried = await relay.attempts.run(relay.plan, {
    send: (attempt) => relay.send(attempt),
    admit: (attempt) => coverAttempt(relay, attempt),
    async read({ attempt, exchange, response, record, sentAt }) {
      const answer = await readWhole(exchange, response, timeoutsOf(relay.config, attempt));
      record.ttfcMs = Math.round(performance.now() - sentAt);
      return answer;
    },
  });
  record.upstreamMs += performance.now() - upstreamStart;
  record.affinity = relay.plan.affinity();
  if (!tried.ok) {
    // Written after the answer goes out, as every settlement is (settle.ts).
    settlement.settle(
      { status: "failed", reason: requestReason(tried.error, relay.attempts.records) },
      relay.attempts.records,
    );
    throw tried.error;
  }
  const { attempt, exchange, record: served } = tried;
  exchange.finish();
  record.channel = attempt.channel.name;
  const converted = relay.translator.toward(upstreamOf(relay, attempt))
    .response(tried.value, attempt.upstreamModel);
  served.outcome = "ok";
  // It waits only to load the tokenizer, when the upstream reported no usage to bill.
  await settlement.bill(served, {
    status: "ok",
    usage: converted.usage,
    outputText: converted.outputText,
  });
  settlement.settle({ status: "ok" }, relay.attempts.records, served);
  // Kept before it is answered, so that the client's next turn finds it on any node.
  if (relay.turn) {
    await keepQuietly(relay.log, relay.requestId, relay.turn.keepWhole(converted));
  }
  record.firstByteMs = elapsedMs(record);
  return new Response(converted.body, {
    headers: {
      "content-type": "application/json",
      "server-timing": serverTiming(record),
      ...servedHeaders(relay, attempt),
    },
  });
}
