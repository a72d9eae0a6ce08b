/** `tollgate serve`: runs the gateway until SIGINT or SIGTERM, then drains and exits. */
import { debugLogging } from "../config/load.ts";
import { createLogger } from "../log.ts";
import { startServer } from "../server.ts";
import type { ServeCommand } from "./context.ts";

/** Starts the server, prints where it listens (and a first key on a fresh database), and waits. */
export const serveCommand: ServeCommand = async ({ configPath }) => {
  const log = createLogger(undefined, undefined, { debug: debugLogging() });
  const server = await startServer({ configPath, log });
  console.log(`tollgate listening on ${server.url} (config: ${configPath})`);
  if (server.firstKey) {
    console.log(
      [
        "",
        'First run: created account "admin" (unlimited) and this API key. It is shown only once:',
        "",
        `  ${server.firstKey}`,
        "",
        "Try it:",
        `  curl ${server.url}/v1/chat/completions -H "Authorization: Bearer ${server.firstKey}" \\`,
        `    -H "Content-Type: application/json" -d '{"model":"echo","messages":[{"role":"user","content":"hello"}]}'`,
        "",
        `Dashboard: open ${server.url}/admin and sign in with this key (it is an admin key).`,
        "",
      ].join("\n"),
    );
  }
  const stop = () => {
    console.log("tollgate: shutting down, finishing requests in flight");
    void server.shutdown();
  };
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, stop);
  await server.finished;
  await server.shutdown();
  for (const signal of signals) Deno.removeSignalListener(signal, stop);
  return 0;
};
