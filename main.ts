/** tollgate's command line: `deno run -A main.ts <command>`, or the compiled executable. */
import { runCli } from "./src/cli/main.ts";
import { serveCommand } from "./src/cli/serve.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args, undefined, { commands: { serve: serveCommand } }));
}
