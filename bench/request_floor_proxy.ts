/**
 * The runtime's floor for a proxy that meters whole answers: forwards POST
 * /v1/chat/completions to the upstream, either passing both bodies through untouched
 * (`native`), or reading and parsing both as JSON (`parse`: what routing and usage need),
 * or also writing one row per request to a SQLite file, group-committed per event-loop
 * turn as tollgate's ledger is (`ledger`), or writing a hold row that commits before the
 * upstream call and a ledger row after it (`hold`: the least a gateway does that lets no
 * request reach an upstream unrecorded when it crashes, as tollgate's holds do). The
 * `http1` and `http1-hold` modes are `parse` and `hold` with tollgate's own HTTP/1.1 client
 * in place of fetch, as tollgate reaches channels since 2026-11-25; `http1-store` is
 * `http1-hold` writing through tollgate's own store instead of two bare tables (its schema:
 * the ledger's indexes, the account's and key's running totals): what tollgate's accounting
 * costs, apart from the rest of its request path. `own-server` is `http1` behind a server
 * of its own on `Deno.listen` instead of `Deno.serve` (own_server_floor.ts).
 *
 * Run as a child of bench/request_floor.ts: `deno run -A bench/request_floor_proxy.ts URL MODE`.
 */
import { DatabaseSync } from "node:sqlite";
import { createBatchQueue, DEFERRED_MS } from "../src/db/write_queue.ts";
import { NEVER, serveUntilStdinCloses } from "./child.ts";
import { serveOwnUntilStdinCloses } from "./own_server_floor.ts";
import { createHttpClient } from "../src/upstream/http1/client.ts";
import { openDatabase } from "../src/db/database.ts";
import type { NewHold } from "../src/db/store.ts";
import { benchHold, benchSettlement, fundedTarget } from "./store_rows.ts";

/** How the proxy handles a request. */
export type RequestFloorMode =
  | "native"
  | "parse"
  | "ledger"
  | "hold"
  | "http1"
  | "http1-hold"
  | "http1-store"
  | "own-server";

/** Holds and settlements through tollgate's own store on a SQLite file at `path`. */
async function tollgateStore(path: string) {
  const db = await openDatabase(`file:${path}`);
  const target = await fundedTarget(db);
  // As `tollgate serve` starts: its first heartbeat takes the file's hold journal.
  await db.store.heartbeat({ id: "inst_bench", host: "bench", pid: Deno.pid, heartbeatAt: 0 });
  return {
    hold: async () => {
      const hold = benchHold(target);
      const result = await db.store.takeHold(hold);
      if (!result.ok) throw new Error(`The floor's hold was refused: ${JSON.stringify(result)}.`);
      return hold;
    },
    settle: (hold: NewHold, tokens: number) => db.store.settleHold(benchSettlement(hold, tokens)),
  };
}

/**
 * Rows committed together with the other rows of the same event-loop turn, by tollgate's
 * own group commit: settlements commit in their own batch, as tollgate's do.
 */
function groupCommit(path: string) {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("CREATE TABLE holds (id INTEGER PRIMARY KEY, model TEXT)");
  db.exec("CREATE TABLE rows (id INTEGER PRIMARY KEY, model TEXT, tokens INTEGER)");
  const statements = {
    hold: db.prepare("INSERT INTO holds (id, model) VALUES (?, ?)"),
    settle: db.prepare("INSERT INTO rows (model, tokens) VALUES (?, ?)"),
    release: db.prepare("DELETE FROM holds WHERE id = ?"),
  };
  const write = createBatchQueue<() => void, void>((rows) => {
    db.exec("BEGIN");
    for (const row of rows) row();
    db.exec("COMMIT");
    return rows.map(() => undefined);
  }, { deferMs: DEFERRED_MS });
  let holds = 0;
  return {
    /** Commits a hold row; resolves its id once durable. */
    hold: async (model: string) => {
      const id = ++holds;
      await write([() => statements.hold.run(id, model)]);
      return id;
    },
    /** Writes the ledger row and, given a hold, releases it in the same transaction. */
    settle: (model: string, tokens: number, hold?: number) =>
      write([() => {
        statements.settle.run(model, tokens);
        if (hold !== undefined) statements.release.run(hold);
      }], hold !== undefined ? "deferred" : "now"),
  };
}

if (import.meta.main) {
  const [upstream, mode] = Deno.args as [string, RequestFloorMode];
  if (mode === "own-server") await serveOwnUntilStdinCloses(upstream);
  const dir = await Deno.makeTempDir({ prefix: "request_floor_" });
  const holds = mode === "hold" || mode === "http1-hold";
  const ledger = mode === "ledger" || holds ? groupCommit(`${dir}/floor.db`) : undefined;
  const store = mode === "http1-store" ? await tollgateStore(`${dir}/store.db`) : undefined;
  const client = createHttpClient();
  // The upstream's answer text: through fetch, or tollgate's client in the http1 modes.
  const post = async (body: string): Promise<string> => {
    const url = `${upstream}/v1/chat/completions`;
    const headers = { "content-type": "application/json" };
    if (mode.startsWith("http1")) {
      return await (await client.post({ url, headers, body }, { signal: NEVER, connectMs: 10_000 }))
        .text();
    }
    return await (await fetch(url, { method: "POST", headers, body })).text();
  };
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
    if (store) {
      const held = await store.hold();
      const text = await post(JSON.stringify(body));
      void store.settle(held, Number(JSON.parse(text).usage?.total_tokens ?? 0));
      return new Response(text, { headers: { "content-type": "application/json" } });
    }
    const hold = holds ? await ledger!.hold(String(body.model)) : undefined;
    const text = await post(JSON.stringify(body));
    const answer = JSON.parse(text);
    const tokens = Number(answer.usage?.total_tokens ?? 0);
    // The hold makes a crash safe, so its settlement need not delay the answer.
    if (hold !== undefined) void ledger!.settle(String(body.model), tokens, hold);
    else if (ledger) await ledger.settle(String(body.model), tokens);
    return new Response(text, { headers: { "content-type": "application/json" } });
  });
}
