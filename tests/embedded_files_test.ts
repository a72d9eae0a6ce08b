/**
 * What the executable needs at run time is in main.ts's module graph, which is what
 * `deno compile` embeds: the migrations are imported (not read from a directory), and no
 * module finds a file by its own location or in node_modules, which would tie it to the
 * source tree or to which package files the compiler happens to embed.
 */
import assert from "node:assert/strict";
import { filesUnder, moduleGraph, ROOT } from "./module_graph.ts";

/** How a module reaches files beside it or in a package by path. */
const FILE_BY_LOCATION = /import\.meta\.(url|resolve|dirname|filename)\b|node_modules/;

/** A module's source without its comments, which may well name node_modules. */
function code(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

Deno.test("embedded files: every migration is imported by main.ts's module graph", async () => {
  const graph = await moduleGraph(["main.ts"]);
  const migrations = await filesUnder("migrations", ".sql");
  assert.ok(migrations.includes("migrations/postgres/001_init.sql"));
  assert.deepEqual(migrations.filter((path) => !graph.has(path)), []);
});

Deno.test("embedded files: no module main.ts loads reads files by its own location or from node_modules", async () => {
  const graph = await moduleGraph(["main.ts"]);
  const found: string[] = [];
  for (const path of graph.keys()) {
    if (!path.endsWith(".ts")) continue;
    const source = await Deno.readTextFile(new URL(path, ROOT));
    if (FILE_BY_LOCATION.test(code(source))) found.push(path);
  }
  assert.ok(graph.has("src/server.ts") && graph.has("src/cli/main.ts"));
  assert.deepEqual(found, []);
});
