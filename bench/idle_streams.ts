/**
 * The idle-stream phase: N streams open at once through a fresh tollgate, each upstream
 * sending one chunk and then nothing, held for S seconds (tollgate sends its keep-alive
 * comment every `[server] keepalive_ms` meanwhile) and then closed by the client. It
 * reports tollgate's RSS when idle, at its peak while the streams are held, per stream,
 * and after they closed.
 */
import { sampleRss } from "./memory.ts";
import { openFileLimit, rssKib } from "./processes.ts";
import { type ClientRequest } from "./protocols.ts";
import { mib, opt, table } from "./table.ts";
import type { Ratio } from "./results.ts";

/** What the idle phase needs from the bench's settings. */
export interface IdleSettings {
  idleStreams: number;
  idleSeconds: number;
}

/** What the idle phase measured. */
export interface IdleResult {
  streams: number;
  /** Streams that answered 200 and delivered their first chunk. */
  opened: number;
  errors: number;
  firstError?: string;
  /** Seconds from the first request to the last stream's first chunk. */
  openSeconds: number;
  /** Seconds all opened streams were held at once. */
  heldSeconds: number;
  /** Keep-alive comments a stream got while held, on average. */
  keepalivesPerStream: number;
  /** tollgate's VmRSS after start and one whole answer (KiB). */
  idleRssKib?: number;
  /** The highest VmRSS sampled while opening and holding (KiB). */
  peakRssKib?: number;
  /** (peak - idle) / opened streams (KiB). */
  perStreamKib?: number;
  /** VmRSS two seconds after the client closed every stream (KiB). */
  afterCloseRssKib?: number;
}

/** `[server] keepalive_ms` of the idle phase's tollgate. */
export const IDLE_KEEPALIVE_MS = 1000;
/** Streams being opened at once: enough to open thousands in seconds, not a SYN flood. */
const OPEN_CONCURRENCY = 100;
/** tollgate's open files per idle stream: the client's socket and the upstream's. */
export const FILES_PER_STREAM = 2;
/** Open files a process needs besides its streams (runtime, database, listeners). */
const SPARE_FILES = 256;
const KEEPALIVE = ": keep-alive";
const DECODER = new TextDecoder();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Throws, saying what to do, when the open-file limit cannot hold `streams` streams. */
export async function checkFileLimit(streams: number): Promise<void> {
  const limit = await openFileLimit();
  const needed = streams * FILES_PER_STREAM + SPARE_FILES;
  if (limit !== undefined && limit < needed) {
    throw new Error(
      `Holding ${streams} idle streams failed: tollgate needs about ${needed} open files and ` +
        `the limit is ${limit}. Raise it (ulimit -n) or lower --idle-streams.`,
    );
  }
}

/** One open stream: its body's reader and the reading of the rest of it. */
interface OpenStream {
  reader: ReadableStreamDefaultReader<Uint8Array>;
  keepalives: number;
  reading: Promise<void>;
}

/**
 * Opens `idleStreams` streams of `request` (at most OPEN_CONCURRENCY being opened at a
 * time), holds them for `idleSeconds` while sampling tollgate's RSS, then aborts them.
 */
export async function runIdleStreams(
  pid: number,
  request: (stream: boolean) => ClientRequest,
  settings: IdleSettings,
  progress: (line: string) => void,
): Promise<IdleResult> {
  await checkFileLimit(settings.idleStreams);
  const whole = request(false);
  const first = await fetch(whole.url, {
    method: "POST",
    headers: whole.headers,
    body: whole.body,
  });
  if (first.status !== 200) {
    throw new Error(
      `The idle tollgate answered ${first.status}: ${(await first.text()).slice(0, 300)}`,
    );
  }
  await first.body?.cancel();
  const idleRssKib = await rssKib(pid);

  progress(`opening ${settings.idleStreams} idle streams`);
  const sampler = sampleRss(pid);
  const { url, headers, body } = request(true);
  const open: OpenStream[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const fail = (message: string) => {
    errors++;
    firstError ??= message;
  };
  let closing = false;
  const openOne = async () => {
    try {
      const response = await fetch(url, { method: "POST", headers, body });
      if (response.status !== 200) {
        return fail(`HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
      }
      const reader = response.body!.getReader();
      const { value } = await reader.read();
      if (!value || !DECODER.decode(value).includes("tok0")) {
        await reader.cancel();
        return fail("the stream ended before its first chunk");
      }
      const stream: OpenStream = { reader, keepalives: 0, reading: Promise.resolve() };
      stream.reading = (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return closing ? undefined : fail("the stream ended while held");
          stream.keepalives += DECODER.decode(value).split(KEEPALIVE).length - 1;
        }
      })().catch((error) => {
        if (!closing) fail(`the stream failed while held: ${error}`);
      });
      open.push(stream);
    } catch (error) {
      fail(error instanceof Error ? error.message : String(error));
    }
  };
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: OPEN_CONCURRENCY }, async () => {
    while (next++ < settings.idleStreams) await openOne();
  }));
  const openSeconds = (performance.now() - started) / 1000;
  if (errors > 0) progress(`idle streams: ${errors} errors, first: ${firstError}`);

  progress(`holding ${open.length} idle streams for ${settings.idleSeconds} s`);
  const held = performance.now();
  await sleep(settings.idleSeconds * 1000);
  const heldSeconds = (performance.now() - held) / 1000;
  const peakRssKib = await sampler.stop();
  // Cancelling the reader closes the connection; in Deno 2.9.6 aborting the fetch's signal
  // did not end the reads of more than a few dozen streams held this way.
  closing = true;
  await Promise.all(open.map((stream) => stream.reader.cancel().catch(() => {})));
  await Promise.all(open.map((stream) => stream.reading));
  await sleep(2000);
  const afterCloseRssKib = await rssKib(pid);

  const keepalives = open.reduce((sum, stream) => sum + stream.keepalives, 0);
  return {
    streams: settings.idleStreams,
    opened: open.length,
    errors,
    firstError,
    openSeconds,
    heldSeconds,
    keepalivesPerStream: open.length === 0 ? 0 : keepalives / open.length,
    idleRssKib,
    peakRssKib,
    perStreamKib: idleRssKib === undefined || peakRssKib === undefined || open.length === 0
      ? undefined
      : (peakRssKib - idleRssKib) / open.length,
    afterCloseRssKib,
  };
}

/** Issue 34's bound: 10,000 idle streams held in less than this RSS, in KiB. */
const TEN_THOUSAND_STREAMS_MOST_KIB = 1024 * 1024;

/**
 * 10,000 idle streams' RSS: measured when the phase held that many, else the idle RSS plus
 * 10,000 times what each stream held.
 */
export function idleRatios(result: IdleResult | undefined): Ratio[] {
  if (!result || result.idleRssKib === undefined || result.perStreamKib === undefined) return [];
  const measured = result.opened >= 10_000 && result.peakRssKib !== undefined;
  const kib = measured ? result.peakRssKib! : result.idleRssKib + 10_000 * result.perStreamKib;
  return [{
    name: `10,000 idle streams' RSS, MiB (${measured ? "measured" : `from ${result.opened}`})`,
    value: kib / 1024,
    target: `< ${TEN_THOUSAND_STREAMS_MOST_KIB / 1024}`,
    met: kib < TEN_THOUSAND_STREAMS_MOST_KIB,
  }];
}

/** The idle phase's table. */
export function idleTable(result: IdleResult | undefined, keepaliveMs: number): string[] {
  if (!result) return [];
  return [
    `Idle streams through tollgate priced (one chunk, then silence; keep-alive every ` +
    `${keepaliveMs} ms)`,
    table(
      [
        "streams",
        "opened",
        "open s",
        "held s",
        "keep-alives/stream",
        "idle RSS MiB",
        "peak RSS MiB",
        "KiB/stream",
        "RSS after close MiB",
      ],
      [[
        String(result.streams),
        String(result.opened) + (result.errors > 0 ? ` (${result.errors} errors)` : ""),
        result.openSeconds.toFixed(1),
        result.heldSeconds.toFixed(1),
        result.keepalivesPerStream.toFixed(1),
        mib(result.idleRssKib),
        mib(result.peakRssKib),
        opt(result.perStreamKib, 1),
        mib(result.afterCloseRssKib),
      ]],
    ),
    "(a fresh tollgate; KiB/stream = (peak - idle) / opened streams)",
    "",
  ];
}
