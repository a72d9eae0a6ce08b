/**
 * The direction phase: streams from a client of each protocol through tollgate to a
 * channel of each protocol (three pass-throughs, six translations), each warmed up and
 * then measured at the stream concurrency in rounds of one slice per direction
 * (`interleaved`, `targetRounds`), with tollgate's CPU time per streamed chunk.
 */
import { runLoad } from "./load.ts";
import { checkAnswers, interleaved, measure, sliceWarmupMs } from "./measure.ts";
import type { ChildServer } from "./processes.ts";
import {
  type ClientRequest,
  clientRequest,
  endMarker,
  type Protocol,
  protocolModel,
  PROTOCOLS,
} from "./protocols.ts";
import { targetRounds } from "./targets.ts";
import type { PhaseResult } from "./results.ts";

/** A client protocol and the protocol of the channel that serves it. */
export interface Direction {
  client: Protocol;
  upstream: Protocol;
}

/** One direction's stream phase. */
export type DirectionResult = Direction & { name: string; result: PhaseResult };

/** Each client's pass-through first, then its two translations. */
export const DIRECTIONS: readonly Direction[] = PROTOCOLS.flatMap((client) =>
  [client, ...PROTOCOLS.filter((p) => p !== client)].map((upstream) => ({ client, upstream }))
);

/** `chat -> messages`, or `chat pass-through` when both sides speak the same protocol. */
export function directionName({ client, upstream }: Direction): string {
  return client === upstream ? `${client} pass-through` : `${client} -> ${upstream}`;
}

/** What the direction phase needs from the bench's settings. */
export interface DirectionSettings {
  duration: number;
  warmup: number;
  streamConcurrency: number;
  chunks: number;
}

/**
 * Checks every direction, warms each up for half the warm-up time, then measures each in
 * turn for the phase duration against `tollgate`, called with `key` (an unlimited
 * account, unpriced models: the figures are translation, not accounting).
 */
export async function runDirections(
  tollgate: ChildServer,
  key: string,
  settings: DirectionSettings,
  progress: (line: string) => void,
): Promise<DirectionResult[]> {
  const requestFor = (direction: Direction) => (stream: boolean): ClientRequest =>
    clientRequest(direction.client, {
      baseUrl: tollgate.ready.url,
      key,
      model: protocolModel(direction.upstream),
    }, stream);
  const streamPhase = (direction: Direction, seconds: number) => ({
    ...requestFor(direction)(true),
    stream: true,
    endMarker: endMarker(direction.client),
    concurrency: settings.streamConcurrency,
    durationMs: seconds * 1000,
  });

  for (const direction of DIRECTIONS) {
    const name = `tollgate ${directionName(direction)}`;
    await checkAnswers(name, direction.client, requestFor(direction), settings.chunks);
    progress(`warming up ${name}`);
    await runLoad(streamPhase(direction, settings.warmup / 2));
  }
  const rounds = targetRounds(settings.duration);
  const combined = await interleaved(
    DIRECTIONS,
    settings.duration,
    async (direction, round, seconds) => {
      progress(`streams ${directionName(direction)} (${round}/${rounds})`);
      await runLoad({ ...streamPhase(direction, 0), durationMs: sliceWarmupMs(settings.warmup) });
      return await measure(tollgate.pid, streamPhase(direction, seconds));
    },
    rounds,
  );
  return DIRECTIONS.map((direction, index) => {
    const name = directionName(direction);
    const result = combined[index]!;
    if (result.errors > 0) {
      progress(`${name}: ${result.errors} errors, first: ${result.firstError}`);
    }
    return { ...direction, name, result };
  });
}
