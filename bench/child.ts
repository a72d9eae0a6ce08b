/**
 * The contract between bench/run.ts and the servers it starts as child processes: a
 * child prints one JSON line on stdout when it is ready, and stops when its stdin closes
 * (so it never outlives the bench, even if the bench is killed).
 */

/** The signal of a floor proxy's upstream calls: they never give up. */
export const NEVER = new AbortController().signal;

/** Prints the ready line for the parent. */
export function announce(ready: Record<string, unknown>): void {
  console.log(JSON.stringify(ready));
}

/** Resolves when stdin reaches its end (the parent closed it or died). */
export async function stdinClosed(): Promise<void> {
  try {
    for await (const _ of Deno.stdin.readable) { /* drain */ }
  } catch { /* a closed stdin is the signal itself */ }
}

/** Serves `handler` on 127.0.0.1 on a free port, announces its URL, and stops on stdin EOF. */
export async function serveUntilStdinCloses(
  handler: (request: Request) => Response | Promise<Response>,
): Promise<void> {
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => announce({ url: `http://127.0.0.1:${port}` }),
  }, handler);
  await stdinClosed();
  Deno.exit(0);
}
