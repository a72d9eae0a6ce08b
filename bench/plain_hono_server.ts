/**
 * The plain Hono app of tests/fakes/plain_hono.ts as a bench child: a minimal `new Hono()`
 * on `Deno.serve` answering a POST with the JSON body Hono read, behind Hono's `bodyLimit`
 * when given a limit.
 *
 * Run as a child of bench/chunked_body.ts: `deno run -A bench/plain_hono_server.ts [MAX_BYTES]`.
 */
import { plainHonoApp } from "../tests/fakes/plain_hono.ts";
import { serveUntilStdinCloses } from "./child.ts";

if (import.meta.main) {
  const [limit] = Deno.args;
  await serveUntilStdinCloses(plainHonoApp(limit === undefined ? undefined : Number(limit)).fetch);
}
