import assert from "node:assert/strict";
import type { Principal } from "../auth/principal.ts";
import { parseConfig } from "../config/schema.ts";
import { type Db, openDatabase } from "../db/database.ts";
import { createStoredResponses } from "./stored_responses.ts";

const DAY_MS = 86_400_000;

/** A store on a fresh SQLite file, with a clock the test moves. */
async function withStore(
  test: (
    store: ReturnType<typeof createStoredResponses>,
    clock: { now: number },
    db: Db,
  ) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_stored_" });
  const db = await openDatabase(`file:${dir}/tollgate.db`);
  try {
    assert.equal((await db.migrate()).error, undefined);
    const clock = { now: 1_800_000_000_000 };
    await test(
      createStoredResponses({
        rows: () => db.storedResponses(),
        now: () => clock.now,
      }),
      clock,
      db,
    );
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const PRINCIPAL = { id: "key_1", accountId: 1 } as Principal;
const config = (days: number) => parseConfig({ responses: { retention_days: days } });

/** A whole answer as the relay hands it over: its text and that text parsed. */
function whole(text: string) {
  return { body: text, json: JSON.parse(text) };
}

function answer(id: string, text: string): string {
  return JSON.stringify({
    id,
    object: "response",
    model: "m",
    output: [{
      id: `msg_${id}`,
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text }],
    }],
  });
}

Deno.test("stored responses: kept for retention_days, then neither found nor chained, and removed", () =>
  withStore(async (store, clock) => {
    const turn = await store.begin(config(2), PRINCIPAL, { model: "m", input: "hi" });
    assert.ok(turn);
    await turn.keepWhole(whole(answer("resp_1", "hello")));
    assert.ok(await store.find(1, "resp_1"));
    assert.equal(await store.find(2, "resp_1"), undefined, "another account's");
    clock.now += 2 * DAY_MS - 1;
    assert.ok(await store.find(1, "resp_1"), "kept to the last millisecond");
    clock.now += 1;
    assert.equal(await store.find(1, "resp_1"), undefined);
    await assert.rejects(
      store.begin(config(2), PRINCIPAL, { input: "x", previous_response_id: "resp_1" }),
      (error: { code?: string }) => error.code === "previous_response_not_found",
    );
    assert.equal(await store.expire(), 1);
    assert.equal(await store.expire(), 0);
  }));

Deno.test("stored responses: a chain is one read; each turn keeps its own input and a link, the conversation is the chain", () =>
  withStore(async (store, _, db) => {
    let previous: string | undefined;
    for (let i = 1; i <= 50; i++) {
      const body: Record<string, unknown> = { model: "m", input: `turn ${i}` };
      if (previous) body.previous_response_id = previous;
      const turn = await store.begin(config(30), PRINCIPAL, body);
      assert.ok(turn);
      if (previous) {
        // Every earlier question and answer, then this turn's input.
        assert.equal((turn.body.input as unknown[]).length, 2 * (i - 1) + 1);
      }
      await turn.keepWhole(whole(answer(`resp_${i}`, `answer ${i}`)));
      previous = `resp_${i}`;
    }
    const last = await store.find(1, "resp_50");
    assert.equal(JSON.parse(last!.input_items).length, 1, "its own input only");
    assert.equal(last!.previous_response_id, "resp_49");
    const items = await store.inputItems(1, "resp_50");
    assert.equal(items!.length, 99, "the conversation before it, then its input");
    assert.match(JSON.stringify(items![0]), /turn 1"/);
    assert.match(JSON.stringify(items![1]), /answer 1"/);
    assert.match(JSON.stringify(items![98]), /turn 50"/);
    assert.equal(await store.inputItems(2, "resp_50"), undefined, "another account's");
    // What a turn stores does not grow with the turns before it.
    const { rows } = await db.client.execute(
      "SELECT length(response) + length(input_items) AS bytes FROM stored_responses ORDER BY id",
    );
    const bytes = rows.map((row) => Number(row.bytes));
    assert.ok(Math.max(...bytes) - Math.min(...bytes) < 16, bytes.join(", "));
  }));

Deno.test("stored responses: storing a turn extends the turns before it to its expiry", () =>
  withStore(async (store, clock) => {
    await (await store.begin(config(2), PRINCIPAL, { input: "one" }))!
      .keepWhole(whole(answer("resp_1", "first")));
    clock.now += DAY_MS;
    await (await store.begin(config(2), PRINCIPAL, {
      input: "two",
      previous_response_id: "resp_1",
    }))!
      .keepWhole(whole(answer("resp_2", "second")));
    clock.now += 2 * DAY_MS - 1;
    assert.ok(await store.find(1, "resp_1"), "kept as long as the turn that continues it");
    assert.equal((await store.inputItems(1, "resp_2"))!.length, 3);
    clock.now += 1;
    assert.equal(await store.find(1, "resp_1"), undefined);
    assert.equal(await store.expire(), 2);
  }));

Deno.test("stored responses: a turn stored before migration 010 (its conversation whole, no link) is continued as before", () =>
  withStore(async (store, clock, db) => {
    const conversation = [
      { id: "msg_a", type: "message", role: "user", content: [{ type: "input_text", text: "a" }] },
      { id: "msg_b", type: "message", role: "assistant", content: [] },
      { id: "msg_c", type: "message", role: "user", content: [{ type: "input_text", text: "c" }] },
    ];
    await db.client.execute({
      sql: `INSERT INTO stored_responses (id, account_id, key_id, model, created_at, expires_at,
        response, input_items) VALUES (?, 1, 'key_1', 'm', ?, ?, ?, ?)`,
      args: [
        "resp_old",
        clock.now,
        clock.now + DAY_MS,
        answer("resp_old", "d"),
        JSON.stringify(conversation),
      ],
    });
    assert.equal((await store.inputItems(1, "resp_old"))!.length, 3);
    const turn = await store.begin(config(1), PRINCIPAL, {
      input: "e",
      previous_response_id: "resp_old",
    });
    assert.equal((turn!.body.input as unknown[]).length, 5);
    await turn!.keepWhole(whole(answer("resp_new", "f")));
    assert.equal((await store.inputItems(1, "resp_new"))!.length, 5);
  }));

Deno.test("stored responses: [responses] store = false keeps and resolves nothing", () =>
  withStore(async (store) => {
    const off = parseConfig({ responses: { store: false } });
    assert.equal(await store.begin(off, PRINCIPAL, { model: "m", input: "hi" }), undefined);
  }));

Deno.test("stored responses: a whole answer is kept as the client got it; an output item without an id is given one", () =>
  withStore(async (store) => {
    const named = answer("resp_named", "hello");
    await (await store.begin(config(1), PRINCIPAL, { input: "hi" }))!.keepWhole({
      body: new TextEncoder().encode(named),
      json: JSON.parse(named),
    });
    assert.equal((await store.find(1, "resp_named"))!.response, named);
    const unnamed = {
      id: "resp_unnamed",
      output: [{ type: "message", role: "assistant", content: [] }],
    };
    await (await store.begin(config(1), PRINCIPAL, { input: "hi" }))!.keepWhole({
      body: JSON.stringify(unnamed),
      json: unnamed,
    });
    const kept = JSON.parse((await store.find(1, "resp_unnamed"))!.response);
    assert.match(kept.output[0].id, /^msg_[0-9a-f]{32}$/);
  }));
