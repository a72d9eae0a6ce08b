import assert from "node:assert/strict";
import { takeHoldJournal } from "./hold_journal.ts";
import type { NewHold } from "./store.ts";

/** A hold as the relay takes one, told apart by `id`. */
function hold(id: string): NewHold {
  return {
    id,
    instanceId: "inst_journal",
    accountId: 1,
    keyId: "key_1",
    amountMicros: 1_000,
    tokens: 100,
    createdAt: 1,
    expiresAt: 60_001,
    requestId: `req_${id}`,
    model: "m",
    entryPoint: "chat",
    stream: false,
    inputTokens: 50,
    inputCostMicros: 5,
  };
}

Deno.test("hold journal: the next owner gets the holds after the last commit mark, a torn last line left out", async () => {
  const path = `${await Deno.makeTempDir()}/t.db-holds`;
  const first = takeHoldJournal(path)!;
  assert.deepEqual(first.leftover, []);
  first.journal.append([hold("a"), hold("b")]);
  first.journal.committed();
  first.journal.append([hold("c")]);
  first.journal.append([hold("d"), hold("e")]);
  first.journal.close();
  // A crash in the middle of an append: that batch never resolved, so nothing went upstream.
  await Deno.writeTextFile(path, '[{"id":"f","instanceId"', { append: true });

  const next = takeHoldJournal(path)!;
  assert.deepEqual(next.leftover, [hold("c"), hold("d"), hold("e")]);
  next.journal.committed();
  next.journal.close();
  assert.deepEqual(takeHoldJournal(path)!.leftover, []);
});

Deno.test("hold journal: one owner at a time; closing hands it over", async () => {
  const path = `${await Deno.makeTempDir()}/t.db-holds`;
  const owner = takeHoldJournal(path)!;
  assert.equal(takeHoldJournal(path), undefined);
  owner.journal.append([hold("a")]);
  owner.journal.close();
  const next = takeHoldJournal(path);
  assert.deepEqual(next?.leftover, [hold("a")]);
  next!.journal.close();
});

Deno.test("hold journal: past its size it is emptied at a commit, when every hold is in the database", async () => {
  const path = `${await Deno.makeTempDir()}/t.db-holds`;
  const { journal } = takeHoldJournal(path, { compactAfterBytes: 1_000 })!;
  for (let i = 0; i < 2; i++) {
    journal.append([hold(`h${i}`)]);
    journal.committed();
  }
  assert.ok((await Deno.stat(path)).size > 0, "marked while small");
  for (let i = 0; (await Deno.stat(path)).size > 0; i++) {
    assert.ok(i < 10, "the journal was never emptied");
    journal.append([hold(`more${i}`)]);
    journal.committed();
  }
  journal.append([hold("after")]);
  journal.close();
  assert.deepEqual(takeHoldJournal(path)!.leftover, [hold("after")]);
});

Deno.test("hold journal: holds a commit leaves open stay for the next owner, also across an emptying", async () => {
  const path = `${await Deno.makeTempDir()}/t.db-holds`;
  const { journal } = takeHoldJournal(path, { compactAfterBytes: 2_000 })!;
  journal.append([hold("settled"), hold("young")]);
  journal.committed([hold("young")]);
  journal.append([hold("later")]);
  journal.close();
  const next = takeHoldJournal(path, { compactAfterBytes: 2_000 })!;
  assert.deepEqual(next.leftover, [hold("young"), hold("later")]);

  // Past its size the journal is emptied, and the open holds written again at its start.
  const again = next.journal;
  for (let i = 0; (await Deno.stat(path)).size < 2_000; i++) again.append([hold(`fill${i}`)]);
  again.committed([hold("still running")]);
  assert.ok((await Deno.stat(path)).size < 1_000, "emptied at the commit");
  again.close();
  assert.deepEqual(takeHoldJournal(path)!.leftover, [hold("still running")]);
});

Deno.test("hold journal: a batch of any size and any text is written whole", async () => {
  const path = `${await Deno.makeTempDir()}/t.db-holds`;
  const { journal } = takeHoldJournal(path)!;
  // A line past the 16 KiB the journal encodes into, then short ones after it, one not ASCII.
  const many = Array.from({ length: 200 }, (_, i) => hold(`many${i}`));
  journal.append(many);
  journal.append([{ ...hold("é"), model: "modèle ✓" }]);
  journal.append([hold("last")]);
  journal.close();
  assert.deepEqual(takeHoldJournal(path)!.leftover, [
    ...many,
    { ...hold("é"), model: "modèle ✓" },
    hold("last"),
  ]);
});

Deno.test("hold journal: a line keeps each hold's instance, and a journal of the first version (objects) is read as well", async () => {
  const path = `${await Deno.makeTempDir()}/t.db-holds`;
  // As the first version wrote its lines, before an upgrade after a crash.
  await Deno.writeTextFile(path, `${JSON.stringify([hold("a")])}\n`);
  const owner = takeHoldJournal(path)!;
  assert.deepEqual(owner.leftover, [hold("a")]);
  const elsewhere = { ...hold("c"), instanceId: "inst_other", stream: true };
  owner.journal.append([hold("b"), elsewhere, hold("d")]);
  owner.journal.close();
  const next = takeHoldJournal(path)!;
  assert.deepEqual(next.leftover, [hold("a"), hold("b"), elsewhere, hold("d")]);
  next.journal.close();
});
