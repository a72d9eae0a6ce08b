/**
 * Lines written in batches: a line is encoded at once into the batch's buffer, and the
 * buffer goes out in one asynchronous write up to a tenth of a second later (or at once
 * when full), so logging a request never blocks the loop on a slow terminal or pipe, a
 * busy server makes one write for hundreds of requests, and no line's string outlives
 * its request (strings kept for a batch survive garbage collections and cost more).
 */

/** How long a line may wait for others to share its write. */
const BATCH_MS = 100;
/** The size of a batch's buffer: a full buffer goes out at once. */
const BATCH_BYTES = 64 * 1024;

/** Where batches of bytes go; resolves when written. */
export type WriteBytes = (bytes: Uint8Array) => Promise<void>;

/** Queues lines and writes them in batches. */
export interface LineWriter {
  line(text: string): void;
  /** Resolves once everything queued so far is written. */
  flush(): Promise<void>;
}

const ENCODER = new TextEncoder();
const NEWLINE = 0x0a;

/** A line writer over `write` (stdout by default). */
export function createLineWriter(write: WriteBytes = writeStdout): LineWriter {
  let buffer = new Uint8Array(BATCH_BYTES);
  let used = 0;
  let writing: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A failed write (closed stdout) loses log lines, never a request.
  const send = (bytes: Uint8Array) => {
    writing = writing.then(() => write(bytes)).catch(() => {});
  };
  const drain = () => {
    clearTimeout(timer);
    timer = undefined;
    if (used === 0) return;
    const bytes = buffer.subarray(0, used);
    buffer = new Uint8Array(BATCH_BYTES);
    used = 0;
    send(bytes);
  };
  /** Encodes `text` and a newline after what is queued; false when it does not fit. */
  const append = (text: string) => {
    const { read, written } = ENCODER.encodeInto(text, buffer.subarray(used));
    if (read < text.length || used + written >= buffer.length) return false;
    buffer[used + written] = NEWLINE;
    used += written + 1;
    return true;
  };
  return {
    line(text) {
      if (!append(text)) {
        drain();
        // A line longer than a whole batch gets a buffer of its own.
        if (!append(text)) return send(ENCODER.encode(text + "\n"));
      }
      timer ??= setTimeout(drain, BATCH_MS);
    },
    flush() {
      drain();
      return writing;
    },
  };
}

async function writeStdout(bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.length;) {
    offset += await Deno.stdout.write(bytes.subarray(offset));
  }
}
