/**
 * Lines written in batches: a line is queued at once and the queue goes out in one
 * asynchronous write per event-loop turn, so logging a request never blocks the loop
 * on a slow terminal or pipe.
 */
import { setImmediate } from "node:timers";

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
  let writing: Promise<void> = Promise.resolve();
  let scheduled = false;
  const drain = () => {
    scheduled = false;
    if (queued.length === 0) return;
    const text = queued.join("\n") + "\n";
    queued = [];
    // A failed write (closed stdout) loses log lines, never a request.
    writing = writing.then(() => write(text)).catch(() => {});
  };
  return {
    line(text) {
      queued.push(text);
      if (!scheduled) {
        scheduled = true;
        setImmediate(drain);
      }
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
