/**
 * The project's own modules and the imports between them, as `deno info --json` reads
 * them: static, dynamic and type-only imports alike. Paths are relative to the project.
 */
import { relative } from "node:path";

/** The project's root directory. */
export const ROOT = new URL("../", import.meta.url);
const ROOT_PATH = ROOT.pathname;

/** The project's modules (node_modules and npm packages left out), each with what it imports. */
export type ModuleGraph = Map<string, string[]>;

interface InfoDependency {
  code?: { specifier?: string };
  type?: { specifier?: string };
}

interface InfoModule {
  specifier: string;
  dependencies?: InfoDependency[];
}

/** The project-relative path of a `file:` specifier inside the project, else undefined. */
function projectPath(specifier: string | undefined): string | undefined {
  if (!specifier?.startsWith("file:")) return undefined;
  const path = relative(ROOT_PATH, new URL(specifier).pathname);
  return path.startsWith("..") || path.startsWith("node_modules/") ? undefined : path;
}

/** The graph of the modules reached from `roots` (project-relative paths). */
export async function moduleGraph(roots: string[]): Promise<ModuleGraph> {
  // deno info takes one root: a module of our own imports them all.
  const dir = await Deno.makeTempDir({ prefix: "tollgate_graph_" });
  try {
    const root = `${dir}/roots.ts`;
    await Deno.writeTextFile(
      root,
      roots.map((path) => `import ${JSON.stringify(new URL(path, ROOT).href)};\n`).join(""),
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", new URL("deno.json", ROOT).pathname, root],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      throw new Error(`deno info failed: ${new TextDecoder().decode(output.stderr)}`);
    }
    const info: { modules: InfoModule[] } = JSON.parse(new TextDecoder().decode(output.stdout));
    const graph: ModuleGraph = new Map();
    for (const module of info.modules) {
      const path = projectPath(module.specifier);
      if (path === undefined) continue;
      const imports = new Set<string>();
      for (const dependency of module.dependencies ?? []) {
        for (const target of [dependency.code?.specifier, dependency.type?.specifier]) {
          const imported = projectPath(target);
          if (imported !== undefined) imports.add(imported);
        }
      }
      graph.set(path, [...imports]);
    }
    return graph;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The project-relative paths of the files under `dir` whose names end in `suffix`. */
export async function filesUnder(dir: string, suffix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...await filesUnder(path, suffix));
    else if (entry.name.endsWith(suffix)) found.push(path);
  }
  return found.sort();
}
