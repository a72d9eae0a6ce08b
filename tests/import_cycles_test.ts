/**
 * No module under src/ imports itself through others: a cycle makes two files one concern
 * (db/database <-> db/postgres, observability/metrics <-> exposition and
 * translate/translation <-> passthrough/translated were, until their shared types moved).
 * No folder under src/ does either: each folder is one concern, below the folders that use
 * it (dashboard/ and routes/, routing/ and upstream/, auth/ and middleware/, auth/ and
 * routing/, protocols/ and translate/ imported each other until the layout of design.md).
 * protocols/ and translate/ are pure (style.md): they import no folder of the server, the
 * database or the network. Type-only and dynamic imports count: they bind as tightly.
 */
import assert from "node:assert/strict";
import { filesUnder, type ModuleGraph, moduleGraph } from "./module_graph.ts";

/** The groups of modules that import one another, each sorted (Tarjan's strongly connected components). */
function importCycles(graph: ModuleGraph): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (module: string) => {
    order.set(module, order.size);
    low.set(module, order.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const imported of graph.get(module) ?? []) {
      if (!order.has(imported)) {
        visit(imported);
        low.set(module, Math.min(low.get(module)!, low.get(imported)!));
      } else if (onStack.has(imported)) {
        low.set(module, Math.min(low.get(module)!, order.get(imported)!));
      }
    }
    if (low.get(module) !== order.get(module)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== module);
    if (group.length > 1 || graph.get(module)?.includes(module)) cycles.push(group.sort());
  };
  for (const module of graph.keys()) if (!order.has(module)) visit(module);
  return cycles;
}

Deno.test("import cycles: no module under src/ imports itself through other modules", async () => {
  const sources = (await filesUnder("src", ".ts")).filter((path) => !path.endsWith("_test.ts"));
  const graph = await moduleGraph(["main.ts", ...sources]);
  // The graph was read: every module under src/ is in it, with its imports.
  for (const source of sources) assert.ok(graph.has(source), `${source} is missing from the graph`);
  assert.ok(graph.get("src/db/database.ts")?.includes("src/db/postgres.ts"));
  const inSrc = new Map([...graph].filter(([path]) => path.startsWith("src/")));
  assert.deepEqual(importCycles(inSrc), []);
});

/** The folder a module under src/ belongs to: its first folder, or src/'s own file itself. */
function folderOf(path: string): string {
  const [, first, rest] = /^src\/([^/]+)(\/.*)?$/.exec(path) ?? [];
  return rest === undefined ? path : `src/${first}/`;
}

/** The graph of src/'s folders: one imports another when a module of it imports one of the other. */
function folderGraph(graph: ModuleGraph): ModuleGraph {
  const folders = new Map<string, Set<string>>();
  for (const [module, imports] of graph) {
    const from = folderOf(module);
    const edges = folders.get(from) ?? new Set();
    folders.set(from, edges);
    for (const imported of imports) {
      const to = folderOf(imported);
      if (to !== from) edges.add(to);
    }
  }
  return new Map([...folders].map(([folder, edges]) => [folder, [...edges].sort()]));
}

/** src/'s modules (tests aside) and their imports, read once for the tests below. */
async function sourceGraph(): Promise<ModuleGraph> {
  const sources = (await filesUnder("src", ".ts")).filter((path) => !path.endsWith("_test.ts"));
  const graph = await moduleGraph(["main.ts", ...sources]);
  return new Map([...graph].filter(([path]) => path.startsWith("src/")));
}

Deno.test("import cycles: no folder under src/ imports a folder that imports it", async () => {
  const folders = folderGraph(await sourceGraph());
  // The folders were read: the protocols are below translation's users, above translate/.
  assert.ok(folders.get("src/protocols/")?.includes("src/translate/"));
  assert.ok(folders.get("src/api/")?.includes("src/relay/"));
  assert.deepEqual(importCycles(folders), []);
});

/** What the pure folders may import (style.md): each other below them, and src/'s leaves. */
const PURE: Record<string, readonly string[]> = {
  "src/translate/": ["src/errors.ts", "src/ids.ts", "src/usage.ts"],
  "src/protocols/": ["src/translate/", "src/errors.ts", "src/ids.ts", "src/usage.ts"],
  "src/tokens/": [],
};

Deno.test("import cycles: translate/, protocols/ and tokens/ import nothing of the server, the database or the network", async () => {
  const folders = folderGraph(await sourceGraph());
  for (const [folder, allowed] of Object.entries(PURE)) {
    const imported = folders.get(folder) ?? [];
    assert.deepEqual(imported.filter((to) => !allowed.includes(to)), [], folder);
  }
});

Deno.test("import cycles: folders are grouped as design.md's layout has them", () => {
  const graph: ModuleGraph = new Map([
    ["src/app.ts", ["src/api/relay.ts"]],
    ["src/api/relay.ts", ["src/relay/exchange.ts", "src/api/body.ts"]],
    ["src/api/body.ts", ["src/errors.ts"]],
    ["src/relay/exchange.ts", ["src/protocols/chat/index.ts"]],
    ["src/protocols/chat/index.ts", ["src/api/body.ts"]],
  ]);
  assert.deepEqual(folderGraph(graph).get("src/api/"), ["src/errors.ts", "src/relay/"]);
  assert.deepEqual(importCycles(folderGraph(graph)), [[
    "src/api/",
    "src/protocols/",
    "src/relay/",
  ]]);
});

Deno.test("import cycles: the finder reports each group that imports itself, and nothing else", () => {
  const graph: ModuleGraph = new Map([
    ["a.ts", ["b.ts", "d.ts"]],
    ["b.ts", ["c.ts"]],
    ["c.ts", ["a.ts", "d.ts"]],
    ["d.ts", ["e.ts"]],
    ["e.ts", []],
    ["f.ts", ["f.ts"]],
  ]);
  assert.deepEqual(importCycles(graph), [["a.ts", "b.ts", "c.ts"], ["f.ts"]]);
});
