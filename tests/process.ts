/** A real `tollgate serve` child process for tests that signal or kill it. */

const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** A running `tollgate serve` process and the address it listens on. */
export interface ServerProcess {
  child: Deno.ChildProcess;
  url: string;
  /** What it printed up to listening (a first run's key among it). */
  output: string;
}

/** Starts `tollgate serve --config PATH` (with `env` added) and reads its address from stdout. */
export async function spawnServer(
  configPath: string,
  env?: Record<string, string>,
): Promise<ServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-no-legacy-abort", MAIN, "serve", "--config", configPath],
    stdout: "piped",
    stderr: "null",
    env,
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  for (;;) {
    const { done, value } = await lines.read();
    if (done) throw new Error(`server exited before listening: ${output}`);
    output += value;
    const match = /listening on (http:\/\/\S+)/.exec(output);
    if (match) {
      // Keep draining stdout so the child never blocks on a full pipe.
      void (async () => {
        while (!(await lines.read()).done);
      })().catch(() => {});
      return { child, url: match[1]!, output };
    }
  }
}

/** Runs `tollgate ARGS` as its own process; returns its exit code and stdout. */
export async function runTollgate(args: string[]): Promise<{ code: number; stdout: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-no-legacy-abort", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: output.code, stdout: new TextDecoder().decode(output.stdout) };
}
