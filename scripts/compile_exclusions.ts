/**
 * The files of npm packages that the executable leaves out: parts of packages in main.ts's graph
 * that no code loads at run time. Each rule says why; `deno compile` embeds the rest of every
 * package the graph reaches.
 */
import { join } from "node:path";

/** What to leave out of one package: all of it, some paths, or all but some paths. */
export type Trim = { all: true } | { drop: string[] } | { keep: string[] };

/** The rules, by package name. */
export const TRIMS: Record<string, Trim> = {
  // tollgate imports two leaf files of gpt-tokenizer: o200k's rank file (a `bytes` import,
  // read into tables of its own) and the split pattern. The rest is the other encodings and
  // gpt-tokenizer's own encoder, in three builds (ESM, CommonJS, TypeScript sources).
  "gpt-tokenizer": {
    keep: ["package.json", "data/o200k_base.tiktoken", "esm/encodingParams/constants.js"],
  },
  // libSQL's embedded driver and its native builds: tollgate opens a SQLite file through the
  // runtime's node:sqlite and reaches a libSQL server through the client's web entry (deno.json
  // maps `@libsql/client` to it; the kysely dialect's own client picks it under Deno's export
  // conditions), which loads neither.
  "libsql": { all: true },
  "@libsql/darwin-arm64": { all: true },
  "@libsql/darwin-x64": { all: true },
  "@libsql/linux-arm-gnueabihf": { all: true },
  "@libsql/linux-arm-musleabihf": { all: true },
  "@libsql/linux-arm64-gnu": { all: true },
  "@libsql/linux-arm64-musl": { all: true },
  "@libsql/linux-x64-gnu": { all: true },
  "@libsql/linux-x64-musl": { all: true },
  "@libsql/win32-x64-msvc": { all: true },
  // node-fetch and its polyfills: the old libSQL client (the kysely dialect's) depends on them,
  // but under Deno it fetches through @libsql/isomorphic-fetch's web entry, the runtime's fetch.
  "node-fetch": { all: true },
  "fetch-blob": { all: true },
  "formdata-polyfill": { all: true },
  "web-streams-polyfill": { all: true },
  "data-uri-to-buffer": { all: true },
  "node-domexception": { all: true },
  // bintrees (prom-client -> tdigest) ships a test fixture of numbers, one a line, most of its
  // tail negative: deno compile's CommonJS analysis parses it as one subtraction nested deep
  // enough to overflow its stack. Nothing loads bintrees' tests.
  "bintrees": { drop: ["test"] },
};

/** Type declarations only (undici's come with Node's): nothing of them exists at run time. */
const TYPES_ONLY = /^@types\/|^undici-types$/;

/** The name of a deno.lock npm entry (`@scope/name@1.2.3_peer@4.5.6`) and its version. */
export function lockedPackage(entry: string): { name: string; version: string } {
  const at = entry.indexOf("@", 1);
  const version = entry.slice(at + 1).split("_")[0]!;
  return { name: entry.slice(0, at), version };
}

/** The paths under `dir` (relative to it) to leave out so that only `keep` and its folders remain. */
async function allBut(dir: string, keep: string[], prefix = ""): Promise<string[]> {
  const dropped: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (keep.includes(path)) continue;
    if (entry.isDirectory && keep.some((kept) => kept.startsWith(`${path}/`))) {
      dropped.push(...await allBut(dir, keep, path));
    } else {
      dropped.push(path);
    }
  }
  return dropped;
}

/** Deno's npm cache directory, as `deno info` reports it. */
export async function npmCache(): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error("Reading deno info failed: see its error above.");
  return JSON.parse(new TextDecoder().decode(output.stdout)).npmCache;
}

/** Whether `path` exists. */
async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/**
 * The absolute paths to pass to `deno compile --exclude`, for the packages of `entries` (deno.lock
 * npm entries) in the npm cache at `cache` (one folder per registry host).
 */
export async function exclusions(cache: string, entries: string[]): Promise<string[]> {
  const registries: string[] = [];
  for await (const entry of Deno.readDir(cache)) {
    if (entry.isDirectory) registries.push(join(cache, entry.name));
  }
  const excluded = new Set<string>();
  for (const entry of entries) {
    const { name, version } = lockedPackage(entry);
    const trim: Trim | undefined = TYPES_ONLY.test(name) ? { all: true } : TRIMS[name];
    if (trim === undefined) continue;
    for (const registry of registries) {
      const dir = join(registry, name, version);
      // A package not in the cache (another platform's build) is excluded by its path all the
      // same: `deno compile --target` fetches it while building.
      if ("all" in trim) excluded.add(dir);
      else if ("drop" in trim) { for (const path of trim.drop) excluded.add(join(dir, path)); }
      else if (await exists(dir)) {
        for (const path of await allBut(dir, trim.keep)) excluded.add(join(dir, path));
      }
    }
  }
  return [...excluded].sort();
}
