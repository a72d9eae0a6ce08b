/**
 * What `tollgate serve` loads at start: main.ts and what it imports statically (value
 * imports; a dynamic `import()` loads when its code runs, a type-only import never). Idle
 * RSS is reported by bench/idle_rss.ts rather than bounded here (it moves by a few MiB from
 * run to run); what keeps it down is that these stay out until a request needs them.
 */
import assert from "node:assert/strict";
import { ROOT } from "./module_graph.ts";

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string }; isDynamic?: boolean }[];
}

/** The specifiers main.ts reaches through static value imports (npm packages by name). */
async function loadedAtStart(): Promise<Set<string>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const info: { roots: string[]; modules: InfoModule[] } = JSON.parse(
    new TextDecoder().decode(output.stdout),
  );
  const modules = new Map(info.modules.map((module) => [module.specifier, module]));
  const reached = new Set<string>();
  const pending = [...info.roots];
  for (let specifier = pending.pop(); specifier !== undefined; specifier = pending.pop()) {
    if (reached.has(specifier)) continue;
    reached.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      const next = dependency.code?.specifier;
      if (next && !dependency.isDynamic) pending.push(next);
    }
  }
  return reached;
}

Deno.test("start: serve loads no query builder, database client, metrics, tokenizer, dashboard page or CLI command", async () => {
  const reached = [...await loadedAtStart()];
  const project = (path: string) => new URL(path, ROOT).href;
  const unwanted = [
    /^npm:\/?(kysely|pg|@libsql\/|prom-client|gpt-tokenizer)\b/,
    project("src/dashboard/routes.tsx"),
    project("src/admin/service.ts"),
    project("src/doctor/run_doctor.ts"),
    project("src/tokens/o200k.ts"),
  ];
  const found = reached.filter((specifier) =>
    unwanted.some((what) => typeof what === "string" ? specifier === what : what.test(specifier))
  );
  assert.deepEqual(found, []);
  // The walk does see packages: the config's validation and TOML load at start.
  assert.ok(reached.some((specifier) => /^npm:\/?zod@/.test(specifier)));
  assert.ok(reached.some((specifier) => /^npm:\/?smol-toml@/.test(specifier)));
});
