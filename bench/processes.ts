/**
 * Starting the bench's servers as child processes (so they do not share the load
 * generator's event loop) and reading their CPU time from /proc.
 */

/** A running child server. */
export interface ChildServer {
  name: string;
  pid: number;
  /** Its ready line: at least `url`. */
  ready: { url: string } & Record<string, unknown>;
  stop(): Promise<void>;
}

const ROOT = new URL("..", import.meta.url);

/**
 * The runtime flags tollgate runs with: those of `deno task start` in deno.json (the
 * compiled executable embeds the same), so that the bench measures tollgate as it ships;
 * `v8Flags` replaces its V8 flags ("none": V8's defaults).
 */
export function tollgateRuntimeFlags(v8Flags?: string, root: URL = ROOT): string[] {
  const start: string = JSON.parse(Deno.readTextFileSync(new URL("deno.json", root))).tasks.start;
  const flags = start.split(/\s+/).filter((word) => word.startsWith("--"));
  if (v8Flags === undefined) return flags;
  const others = flags.filter((flag) => !flag.startsWith("--v8-flags="));
  return v8Flags === "none" ? others : [...others, `--v8-flags=${v8Flags}`];
}

/**
 * Spawns `deno run -A [flags] bench/<script> args` and waits for its ready line; `root`
 * is the checkout whose script runs (this one unless given), `env` variables it gets
 * beside the bench's own (e.g. `BENCH_BUDGETS`).
 */
export async function startChild(
  name: string,
  script: string,
  args: string[],
  flags: string[] = [],
  root: URL = ROOT,
  env: Record<string, string> = {},
): Promise<ChildServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...flags, new URL(`bench/${script}`, root).pathname, ...args],
    cwd: root.pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
    env: { ...env, NO_COLOR: "1" },
  }).spawn();
  // Raw bytes: only the ready line is decoded, the rest (tollgate's request log) is not.
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const firstLine = (async () => {
    while (!buffered.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`The ${name} process exited before it was ready.`);
      buffered += decoder.decode(value, { stream: true });
    }
    return buffered.slice(0, buffered.indexOf("\n"));
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`The ${name} process was not ready in 60 s.`)),
      60_000,
    );
  });
  let ready: ChildServer["ready"];
  try {
    ready = JSON.parse(await Promise.race([firstLine, timeout]));
  } catch (error) {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    throw error;
  } finally {
    // A pending timer would keep the bench alive for the rest of the 60 s.
    clearTimeout(timer);
  }
  // Keep draining stdout so a chatty child never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })().catch(() => {});
  return {
    name,
    pid: child.pid,
    ready,
    async stop() {
      await child.stdin.close().catch(() => {});
      let timer: ReturnType<typeof setTimeout> | undefined;
      const exited = await Promise.race([
        child.status.then(() => true),
        new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), 5_000)),
      ]);
      clearTimeout(timer);
      if (!exited) {
        child.kill("SIGKILL");
        await child.status;
      }
    },
  };
}

let ticksPerSecond: number | undefined;

/** CPU time (user + system, all threads) a process has used, in ms; undefined without /proc. */
export async function cpuMillis(pid: number): Promise<number | undefined> {
  try {
    return await statMillis(await Deno.readTextFile(`/proc/${pid}/stat`));
  } catch {
    return undefined;
  }
}

/** The CPU time, in ms, that a `/proc/<pid>/stat` (or `/proc/<pid>/task/<tid>/stat`) line counts. */
export async function statMillis(stat: string): Promise<number> {
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15)
  ticksPerSecond ??= await clockTicks();
  return (ticks * 1000) / ticksPerSecond;
}

async function clockTicks(): Promise<number> {
  try {
    const { stdout } = await new Deno.Command("getconf", { args: ["CLK_TCK"] }).output();
    return Number(new TextDecoder().decode(stdout).trim()) || 100;
  } catch {
    return 100;
  }
}

/** A short description of the machine: CPU model and core count. */
export async function machine(): Promise<{ cpu: string; cores: number; os: string }> {
  let cpu = "unknown CPU";
  try {
    const info = await Deno.readTextFile("/proc/cpuinfo");
    cpu = /model name\s*:\s*(.+)/.exec(info)?.[1]?.trim() ?? cpu;
  } catch { /* not Linux */ }
  return { cpu, cores: navigator.hardwareConcurrency, os: `${Deno.build.os} ${Deno.build.arch}` };
}

/** Resident memory of a process (`VmRSS`), in KiB; undefined without /proc or once it exited. */
export async function rssKib(pid: number): Promise<number | undefined> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const kib = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib);
  } catch {
    return undefined;
  }
}

/** This process's soft limit of open files (children inherit it); undefined without /proc. */
export async function openFileLimit(): Promise<number | undefined> {
  try {
    const limits = await Deno.readTextFile("/proc/self/limits");
    const soft = /Max open files\s+(\S+)/.exec(limits)?.[1];
    return soft === undefined || soft === "unlimited" ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}
