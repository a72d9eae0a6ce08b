/**
 * A throwaway PostgreSQL cluster for tests: `initdb` into a temp dir, `pg_ctl start` on
 * 127.0.0.1 with fsync off, a fresh database per gateway, and everything stopped and
 * removed by `close`. Start one per test file (a cluster takes about a second). Nothing
 * is skipped: without the PostgreSQL binaries the test fails and says how to get them.
 */
import pg from "pg";

/** A running cluster. */
export interface PostgresCluster {
  /** `postgres://` URL of a database on this cluster. */
  url(database: string): string;
  /** Creates a fresh, empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown), keeping its data: the database is unreachable. */
  stop(): Promise<void>;
  /** Starts the stopped server again on the same port. */
  start(): Promise<void>;
  /** Stops the server and removes its files. */
  close(): Promise<void>;
}

const USER = "tollgate";

/** The newest PostgreSQL's bin directory among Debian's `/usr/lib/postgresql/<version>/bin`. */
async function findBinaries(): Promise<string> {
  const versions: number[] = [];
  try {
    for await (const entry of Deno.readDir("/usr/lib/postgresql")) {
      if (/^\d+$/.test(entry.name)) versions.push(Number(entry.name));
    }
  } catch {
    // No directory: no PostgreSQL, reported below.
  }
  for (const version of versions.sort((a, b) => b - a)) {
    const bin = `/usr/lib/postgresql/${version}/bin`;
    if (await Deno.stat(`${bin}/initdb`).then(() => true, () => false)) return bin;
  }
  throw new Error(
    "Starting a test PostgreSQL failed: no /usr/lib/postgresql/*/bin/initdb on this machine. " +
      "Run .ci/run, which installs PostgreSQL from Debian's packages " +
      "(or `sudo apt-get install -y postgresql`).",
  );
}

/** A free TCP port on 127.0.0.1 (PostgreSQL cannot be given port 0). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Runs a command, as `nobody` when we are root (PostgreSQL refuses to run as root). */
async function run(command: string, args: string[]): Promise<void> {
  const asRoot = Deno.uid() === 0;
  const output = await new Deno.Command(asRoot ? "runuser" : command, {
    args: asRoot ? ["-u", "nobody", "--", command, ...args] : args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const text = new TextDecoder().decode(output.stderr) || new TextDecoder().decode(output.stdout);
    throw new Error(`${command.split("/").pop()} ${args[0] ?? ""} failed: ${text.trim()}`);
  }
}

/**
 * Initializes and starts a cluster on a free port; without fsync unless `durable` (tests
 * need no durability; a benchmark of commits does).
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<PostgresCluster> {
  const bin = await findBinaries();
  const dir = await Deno.makeTempDir({ prefix: "tollgate_pg_" });
  if (Deno.uid() === 0) {
    const chown = await new Deno.Command("chown", { args: ["nobody", dir] }).output();
    if (!chown.success) throw new Error(`chown nobody ${dir} failed`);
  }
  const data = `${dir}/data`;
  await run(`${bin}/initdb`, [
    "--no-sync",
    "-A",
    "trust",
    "-U",
    USER,
    "-E",
    "UTF8",
    "--locale=C",
    "-D",
    data,
  ]);
  let port = 0;
  const pgCtl = (...args: string[]) => run(`${bin}/pg_ctl`, ["-D", data, ...args]);
  const start = async () => {
    await pgCtl(
      "-l",
      `${dir}/server.log`,
      "-w",
      "-o",
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c max_connections=300` +
        (options.durable ? "" : " -F -c synchronous_commit=off -c full_page_writes=off"),
      "start",
    );
  };
  // Another process may take the port between our probe and the server's bind: try again.
  for (let attempt = 1;; attempt++) {
    port = freePort();
    try {
      await start();
      break;
    } catch (error) {
      if (attempt === 3) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        throw error;
      }
    }
  }
  const url = (database: string) => `postgres://${USER}@127.0.0.1:${port}/${database}`;
  let databases = 0;
  return {
    url,
    async createDatabase() {
      const name = `test_${++databases}`;
      const admin = new pg.Client({ connectionString: url("postgres") });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    stop: () => pgCtl("-m", "fast", "-w", "stop"),
    start,
    async close() {
      await pgCtl("-m", "immediate", "-w", "stop").catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}
