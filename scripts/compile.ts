/**
 * Builds the single executable (`deno task compile [DENO COMPILE FLAGS...]`): main.ts's modules,
 * the migrations, and only the npm packages main.ts's graph reaches, without the parts of them
 * that nothing loads at run time. Extra arguments go to `deno compile` (`--output PATH`,
 * `--target TARGET`); the output defaults to `./tollgate`.
 *
 * Why a script: `deno compile` with a local `node_modules` embeds all of it, test-only packages
 * (the SDKs, fast-check) included. From Deno's own npm cache (`--node-modules-dir=none`) with
 * `--exclude-unused-npm`, it embeds the packages the module graph reaches, each whole; the files
 * left out here live in that cache, whose location only the running deno knows.
 */
import { exclusions, npmCache } from "./compile_exclusions.ts";

/** The runtime flags the executable runs with (the `start` and `cli` tasks use the same). */
const RUNTIME_FLAGS = [
  "-A",
  "--unstable-no-legacy-abort",
  "--v8-flags=--max-semi-space-size=4,--heap-growing-percent=30,--no-parallel-scavenge",
];

if (import.meta.main) {
  const root = new URL("../", import.meta.url);
  const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", root)));
  const excluded = await exclusions(await npmCache(), Object.keys(lock.npm ?? {}));
  const named = Deno.args.some((arg) => /^(-o|--output)(=|$)|^-o./.test(arg));
  const args = named ? Deno.args : ["--output", "tollgate", ...Deno.args];
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: [
      "compile",
      ...RUNTIME_FLAGS,
      "--node-modules-dir=none",
      "--exclude-unused-npm",
      ...excluded.flatMap((path) => ["--exclude", path]),
      ...args,
      new URL("main.ts", root).pathname,
    ],
  }).spawn().status;
  Deno.exit(code);
}
