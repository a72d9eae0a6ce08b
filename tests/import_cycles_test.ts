/**
 * No module under src/ imports itself through others: a cycle makes two files one concern
 * (db/database <-> db/postgres, observability/metrics <-> exposition and
 * translate/translation <-> passthrough/translated were, until their shared types moved).
 * Type-only and dynamic imports count: they bind the files as tightly.
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
