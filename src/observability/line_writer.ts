/**
 * Lines written in batches: a line is queued at once and the queue goes out in one
 * asynchronous write up to a tenth of a second later (or at once past a size), so logging
 * a request never blocks the loop on a slow terminal or pipe, and a busy server makes one
 * write for hundreds of requests (a write costs as much as formatting a hundred lines).
 */

/** How long a line may wait for others to share its write. */
const BATCH_MS = 100;
/** Queued text that goes out at once rather than waiting. */
const BATCH_CHARS = 64 * 1024;

/** Where batches of text go; resolves when written. */
export type WriteText = (text: string) => Promise<void>;

/** Queues lines and writes them in batches. */
export interface LineWriter {
  line(text: string): void;
  /** Resolves once everything queued so far is written. */
  flush(): Promise<void>;
}

/** A line writer over `write` (stdout by default). */
export function createLineWriter(write: WriteText = writeStdout): LineWriter {
  let queued: string[] = [];
  let queuedChars = 0;
  let writing: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const drain = () => {
    clearTimeout(timer);
    timer = undefined;
    if (queued.length === 0) return;
    const text = queued.join("\n") + "\n";
    queued = [];
    queuedChars = 0;
    // A failed write (closed stdout) loses log lines, never a request.
    writing = writing.then(() => write(text)).catch(() => {});
  };
  return {
    line(text) {
      queued.push(text);
      queuedChars += text.length;
      if (queuedChars >= BATCH_CHARS) drain();
      else timer ??= setTimeout(drain, BATCH_MS);
    },
    flush() {
      drain();
      return writing;
    },
  };
}

const ENCODER = new TextEncoder();

async function writeStdout(text: string): Promise<void> {
  const bytes = ENCODER.encode(text);
  for (let offset = 0; offset < bytes.length;) {
    offset += await Deno.stdout.write(bytes.subarray(offset));
  }
}
