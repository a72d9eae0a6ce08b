/**
 * A closed-loop load generator on fetch: `concurrency` workers each send a request,
 * read the whole response and send the next, until the duration is over. It records
 * each request's latency and, for streams, its time to first body byte.
 */

/** One measured phase: what to send and how hard. */
export interface LoadPhase {
  url: string;
  headers: Record<string, string>;
  body: string;
  stream: boolean;
  /** Text only the last event of a complete stream holds; `[DONE]` (chat) unless given. */
  endMarker?: string;
  concurrency: number;
  durationMs: number;
}

/** Percentiles of a sample, in milliseconds. */
export interface Percentiles {
  p50: number;
  p99: number;
  mean: number;
}

/** What a phase measured. */
export interface LoadResult {
  /** Requests that completed with 200 and (streams) reached their end marker. */
  requests: number;
  errors: number;
  /** The first error seen, to say why a target failed. */
  firstError?: string;
  seconds: number;
  requestsPerSecond: number;
  latency: Percentiles;
  /** Streams only: time from sending the request to the first body byte. */
  ttfb?: Percentiles;
}

const DECODER = new TextDecoder();

/** Nearest-rank percentiles of `values` (milliseconds); zeros when empty. */
export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { p50: 0, p99: 0, mean: 0 };
  const sorted = Float64Array.from(values).sort();
  const rank = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
  const mean = sorted.reduce((sum, v) => sum + v, 0) / sorted.length;
  return { p50: rank(0.5), p99: rank(0.99), mean };
}

/**
 * How much of a stream's end is kept to look for its end marker: enough for a whole
 * `response.completed` event, which repeats the answer's text.
 */
export const TAIL_BYTES = 8192;

/** Reads a stream to its end; returns the time of the first chunk and whether the end marker came. */
async function readStream(
  body: ReadableStream<Uint8Array>,
  endMarker: string,
): Promise<{ firstAt: number; done: boolean }> {
  const reader = body.getReader();
  let firstAt = 0;
  // The last chunks, at least TAIL_BYTES of them when the stream had that many.
  const tail: Uint8Array[] = [];
  let tailBytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (firstAt === 0) firstAt = performance.now();
    if (value.byteLength === 0) continue;
    tail.push(value);
    tailBytes += value.byteLength;
    while (tailBytes - tail[0]!.byteLength >= TAIL_BYTES) tailBytes -= tail.shift()!.byteLength;
  }
  // Only the tail is decoded: every protocol's end marker is in its stream's last event.
  const text = tail.map((chunk) => DECODER.decode(chunk)).join("");
  return { firstAt, done: text.includes(endMarker) };
}

/** Runs one phase and returns its measurements. */
export async function runLoad(phase: LoadPhase): Promise<LoadResult> {
  const latencies: number[] = [];
  const ttfbs: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const fail = (message: string) => {
    errors++;
    firstError ??= message;
  };
  const endMarker = phase.endMarker ?? "[DONE]";
  const started = performance.now();
  const deadline = started + phase.durationMs;

  const worker = async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      try {
        const response = await fetch(phase.url, {
          method: "POST",
          headers: phase.headers,
          body: phase.body,
        });
        if (response.status !== 200) {
          fail(`HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
          continue;
        }
        if (phase.stream) {
          const { firstAt, done } = await readStream(response.body!, endMarker);
          if (!done) {
            fail(`the stream ended without ${endMarker}`);
            continue;
          }
          ttfbs.push(firstAt - sent);
        } else {
          await response.arrayBuffer();
        }
        latencies.push(performance.now() - sent);
      } catch (error) {
        fail(error instanceof Error ? error.message : String(error));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: phase.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return {
    requests: latencies.length,
    errors,
    firstError,
    seconds,
    requestsPerSecond: latencies.length / seconds,
    latency: percentiles(latencies),
    ttfb: phase.stream ? percentiles(ttfbs) : undefined,
  };
}
