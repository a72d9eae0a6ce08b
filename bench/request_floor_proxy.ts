/**
 * The runtime's floor for a proxy that meters whole answers: forwards POST
 * /v1/chat/completions to the upstream, either passing both bodies through untouched
 * (`native`), or reading and parsing both as JSON (`parse`: what routing and usage need),
 * or also writing one row per request to a SQLite file, group-committed per event-loop
 * turn as tollgate's ledger is (`ledger`).
 *
 * Run as a child of bench/request_floor.ts: `deno run -A bench/request_floor_proxy.ts URL MODE`.
 */
import { DatabaseSync } from "node:sqlite";
import { setImmediate } from "node:timers";
import { serveUntilStdinCloses } from "./child.ts";

/** How the proxy handles a request. */
export type RequestFloorMode = "native" | "parse" | "ledger";

/** One row per request, committed with the other rows of the same event-loop turn. */
function ledger(path: string): (model: string, tokens: number) => Promise<void> {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("CREATE TABLE rows (id INTEGER PRIMARY KEY, model TEXT, tokens INTEGER)");
  const insert = db.prepare("INSERT INTO rows (model, tokens) VALUES (?, ?)");
  let pending: { model: string; tokens: number; done: () => void }[] = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    db.exec("BEGIN");
    for (const row of batch) insert.run(row.model, row.tokens);
    db.exec("COMMIT");
    for (const row of batch) row.done();
  };
  return (model, tokens) =>
    new Promise((done) => {
      pending.push({ model, tokens, done });
      if (pending.length === 1) setImmediate(flush);
    });
}

if (import.meta.main) {
  const [upstream, mode] = Deno.args as [string, RequestFloorMode];
  const dir = await Deno.makeTempDir({ prefix: "request_floor_" });
  const write = mode === "ledger" ? ledger(`${dir}/floor.db`) : undefined;
  await serveUntilStdinCloses(async (request) => {
    if (mode === "native") {
      const response = await fetch(`${upstream}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: await request.arrayBuffer(),
      });
      return new Response(response.body, { headers: response.headers });
    }
    const body = JSON.parse(await request.text());
    const response = await fetch(`${upstream}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const answer = JSON.parse(text);
    if (write) await write(String(body.model), Number(answer.usage?.total_tokens ?? 0));
    return new Response(text, { headers: { "content-type": "application/json" } });
  });
}
