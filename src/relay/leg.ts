/** A stream attempt read to its commit point, as a leg of the client's answer (stream.ts). */

import type { StreamConverter } from "../translate/translation.ts";
import type { Answered } from "./attempts.ts";
import { readToCommit } from "./commit.ts";
import { redactorOf } from "../config/redact.ts";
import { type RelayRequest, timeoutsOf, upstreamOf } from "./relay_request.ts";
import type { Leg } from "./stream.ts";
import type { Usage } from "../usage.ts";

/**
 * An answered attempt's stream read to its commit point, as the leg the client's stream
 * goes on with; `reported` is the usage its own upstream reported (billing's).
 */
export async function readLeg(
  relay: RelayRequest,
  { attempt, exchange, response, record, sentAt }: Answered,
  converter: StreamConverter,
  reported: () => Usage | undefined,
): Promise<Leg> {
  const timeouts = timeoutsOf(relay.config, attempt);
  const upstream = upstreamOf(relay, attempt);
  const watched = relay.turn ? relay.turn.watch(converter) : converter;
  const committed = await readToCommit({
    exchange,
    response,
    upstream,
    converter: watched,
    timeouts,
    firstContentMs: timeouts.first_content,
    redact: redactorOf(relay.config),
  });
  record.ttfcMs = Math.round(performance.now() - sentAt);
  return {
    attempt,
    record,
    reported,
    exchange,
    events: committed.events,
    converter: watched,
    upstream,
    held: committed.held,
    ended: committed.ended,
  };
}
