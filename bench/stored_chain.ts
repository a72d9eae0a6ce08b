/**
 * Resolving a long stored chain, as the request path does (src/stored/resolve.ts): a chain
 * of N turns is built through the store itself (each turn resolved against the one before
 * and its answer kept, as the relay does), then the next turn's `previous_response_id` to
 * the last one is resolved many times over, on a SQLite file and, given a URL, on
 * PostgreSQL. While the chain is built, what each turn adds to the stored rows (bytes of
 * text) and how long keeping it takes are recorded: a turn linked to the one before stores
 * its own items only, so both stay flat along the chain. bench/stored.ts runs it.
 */
import type { Principal } from "../src/auth/principal.ts";
import { parseConfig } from "../src/config/schema.ts";
import { type Db, openDatabase } from "../src/db/database.ts";
import { orderedId } from "../src/ids.ts";
import { resolveTurn } from "../src/stored/resolve.ts";
import { createStoredResponses } from "../src/stored/stored_responses.ts";
import { type Percentiles, percentiles } from "./load.ts";

/** What a chain's resolution measured. */
export interface ChainResult {
  database: string;
  turns: number;
  /** Bytes of text the first and the last tenth of the turns each added to the rows (mean). */
  bytesPerTurn: { first: number; last: number };
  /** Milliseconds keeping a turn took (median), in the first and the last tenth. */
  keepMs: { first: number; last: number };
  /** Items the resolved request sends upstream. */
  items: number;
  iterations: number;
  /** Milliseconds a resolution. */
  latency: Percentiles;
}

/** The shape of a chain: turns, and the size of each question and answer. */
export interface ChainShape {
  turns: number;
  questionBytes: number;
  answerBytes: number;
  iterations: number;
}

const PRINCIPAL = { id: "key_bench", accountId: 1 } as Principal;
const CONFIG = parseConfig({});

/** Text of about `bytes` characters, different for each turn (as a conversation's are). */
function text(turn: number, what: string, bytes: number): string {
  const line = `${what} ${turn}: the bench's conversation goes on, turn after turn. `;
  return line.repeat(Math.max(1, Math.ceil(bytes / line.length))).slice(0, bytes);
}

/** A whole responses answer with one message of about `bytes` characters. */
function answer(id: string, turn: number, bytes: number): string {
  return JSON.stringify({
    id,
    object: "response",
    status: "completed",
    model: "bench-priced",
    output: [{
      id: `msg_${id}`,
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", annotations: [], text: text(turn, "answer", bytes) }],
    }],
    usage: { input_tokens: 12 * turn, output_tokens: bytes / 4, total_tokens: 12 * turn },
  });
}

/** Bytes of text in the stored responses' rows and their items' rows. */
async function storedBytes(db: Db): Promise<number> {
  const [responses, items] = await Promise.all([
    db.client.execute(
      "SELECT sum(length(response) + length(input_items)) AS n FROM stored_responses",
    ),
    db.client.execute("SELECT sum(length(item)) AS n FROM stored_items"),
  ]);
  return Number(responses.rows[0]!.n ?? 0) + Number(items.rows[0]!.n ?? 0);
}

/** Builds `shape`'s chain on the database at `url` and times resolving its next turn. */
export async function measureChain(
  database: string,
  url: string,
  shape: ChainShape,
): Promise<ChainResult> {
  const db = await openDatabase(url);
  try {
    const migration = await db.migrate();
    if (migration.error) throw new Error(`Migrating ${database}: ${migration.error.message}`);
    // The rows the request path uses (on SQLite, plain SQL with group commit).
    const rows = await db.storedResponses();
    const store = createStoredResponses({ rows: () => Promise.resolve(rows), now: Date.now });
    let previous: string | undefined;
    const bytes: number[] = [];
    const keepMs: number[] = [];
    let storedBefore = 0;
    for (let turn = 1; turn <= shape.turns; turn++) {
      const body: Record<string, unknown> = {
        model: "bench-priced",
        input: text(turn, "question", shape.questionBytes),
        ...(previous ? { previous_response_id: previous } : {}),
      };
      const begun = await store.begin(CONFIG, PRINCIPAL, body);
      const id = `resp_bench_${crypto.randomUUID().replaceAll("-", "")}`;
      const kept = answer(id, turn, shape.answerBytes);
      const started = performance.now();
      await begun!.keepWhole({ body: kept, json: JSON.parse(kept) });
      keepMs.push(performance.now() - started);
      const stored = await storedBytes(db);
      bytes.push(stored - storedBefore);
      storedBefore = stored;
      previous = id;
    }
    const tenth = Math.max(1, Math.floor(shape.turns / 10));
    const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
    const next = { model: "bench-priced", input: "And now?", previous_response_id: previous };
    const deps = {
      rows,
      accountId: PRINCIPAL.accountId,
      now: Date.now(),
      newId: (prefix: string) => orderedId(prefix),
    };
    const resolve = () => resolveTurn(next, { ...deps, now: Date.now() });
    const { body } = await resolve();
    const items = (body.input as unknown[]).length;
    if (items !== 2 * shape.turns + 1) {
      throw new Error(`The chain resolved to ${items} items, not ${2 * shape.turns + 1}.`);
    }
    for (let i = 0; i < Math.min(200, shape.iterations); i++) await resolve(); // warm-up
    const times: number[] = [];
    for (let i = 0; i < shape.iterations; i++) {
      const started = performance.now();
      await resolve();
      times.push(performance.now() - started);
    }
    return {
      database,
      turns: shape.turns,
      bytesPerTurn: { first: mean(bytes.slice(0, tenth)), last: mean(bytes.slice(-tenth)) },
      keepMs: {
        first: percentiles(keepMs.slice(0, tenth)).p50,
        last: percentiles(keepMs.slice(-tenth)).p50,
      },
      items,
      iterations: shape.iterations,
      latency: percentiles(times),
    };
  } finally {
    await db.close();
  }
}
