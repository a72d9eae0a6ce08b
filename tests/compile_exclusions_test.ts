/**
 * The executable leaves parts of npm packages out (scripts/compile_exclusions.ts). The built
 * file cannot be run here (deno stands in for its runtime and runs as plain deno), so this runs
 * main.ts on a copy of deno's npm cache without those parts, as the executable would find its
 * packages: a file it needs that the build leaves out fails here.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { exclusions, lockedPackage, npmCache } from "../scripts/compile_exclusions.ts";
import { ROOT } from "./module_graph.ts";

const MAIN = new URL("main.ts", ROOT).pathname;
const PROBE = new URL("compile_exclusions_probe.ts", import.meta.url).pathname;

/** Copies `from` to `to`, hard-linking files where both are on one file system. */
async function copyTree(from: string, to: string): Promise<void> {
  for (const args of [["-al", from, to], ["-a", from, to]]) {
    if ((await new Deno.Command("cp", { args, stderr: "null" }).output()).success) return;
    await Deno.remove(to, { recursive: true }).catch(() => {});
  }
  throw new Error(`Copying the npm cache failed: cp could not copy ${from}.`);
}

/** Runs `deno run ARGS` with `denoDir` as its cache, offline; its exit code and output. */
async function runOffline(denoDir: string, args: string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-no-legacy-abort", "--node-modules-dir=none", "--cached-only"]
      .concat(args),
    env: { DENO_DIR: denoDir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("compile exclusions: a deno.lock entry names its package and version", () => {
  assert.deepEqual(lockedPackage("zod@4.6.7"), { name: "zod", version: "4.6.7" });
  assert.deepEqual(lockedPackage("@anthropic-ai/sdk@1.12.0_zod@4.6.7"), {
    name: "@anthropic-ai/sdk",
    version: "1.12.0",
  });
});

Deno.test("compile exclusions: main.ts runs its commands and loads its lazy packages without the files left out", async () => {
  const cache = await npmCache();
  const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", ROOT)));
  const entries = Object.keys(lock.npm);
  const denoDir = await Deno.makeTempDir({ prefix: "tollgate_trimmed_" });
  try {
    const copy = join(denoDir, "npm");
    await copyTree(cache, copy);
    const excluded = await exclusions(copy, entries);
    assert.ok(excluded.some((path) => path.includes("/gpt-tokenizer/")));
    for (const path of excluded) {
      // deno run fetches every package of the graph before it starts, type-only ones
      // included; the executable reads a package's files only when loading them. An
      // excluded package keeps its package.json, so that a module loaded from it still fails.
      const manifest = await Deno.readTextFile(join(path, "package.json")).catch(() => undefined);
      await Deno.remove(path, { recursive: true }).catch(() => {});
      if (manifest !== undefined) {
        await Deno.mkdir(path);
        await Deno.writeTextFile(join(path, "package.json"), manifest);
      }
    }

    const version = await runOffline(denoDir, [MAIN, "--version"]);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /^tollgate \d+\.\d+\.\d+/);
    const example = new URL("config.example.toml", ROOT).pathname;
    const check = await runOffline(denoDir, [MAIN, "config", "check", "--config", example]);
    assert.equal(check.code, 0, check.stderr);
    assert.match(check.stdout, /is valid/);
    const probe = await runOffline(denoDir, [PROBE]);
    assert.equal(probe.code, 0, probe.stderr);
    assert.deepEqual(JSON.parse(probe.stdout), {
      tokens: 2,
      postgres: "function",
      metrics: "function",
    });
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});
