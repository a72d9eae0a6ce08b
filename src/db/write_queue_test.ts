import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { createBatchQueue } from "./write_queue.ts";

/** A queue whose transactions record the items each one ran. */
function recordingQueue(deferMs: number) {
  const transactions: string[][] = [];
  const write = createBatchQueue<string, string>(
    (items) => {
      transactions.push([...items]);
      return items.map((item) => `done ${item}`);
    },
    { deferMs },
  );
  return { transactions, write };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A queue whose deferred jobs wait until the test ends their delay with `delayOver`. */
function heldQueue() {
  const transactions: string[][] = [];
  const delays: (() => void)[] = [];
  const write = createBatchQueue<string, string>(
    (items) => {
      transactions.push([...items]);
      return items.map((item) => `done ${item}`);
    },
    { deferMs: 10, afterDelay: (callback) => delays.push(callback) },
  );
  return { transactions, write, delays, delayOver: () => delays.shift()!() };
}

Deno.test("write queue: deferred jobs keep out of the next jobs' transactions and commit together after their delay", async () => {
  const { transactions, write, delays, delayOver } = heldQueue();
  let settled = false;
  const first = write(["settle a"], "deferred").then((results) => (settled = true, results));
  assert.deepEqual(await write(["hold 1"]), ["done hold 1"]);
  const second = write(["settle b"], "deferred");
  assert.deepEqual(await write(["hold 2"]), ["done hold 2"]);
  assert.deepEqual(transactions, [["hold 1"], ["hold 2"]], "each hold commits alone");
  assert.equal(settled, false, "a settlement waits for its delay");
  assert.equal(delays.length, 1, "one delay for the deferred jobs queued while it runs");
  delayOver();
  assert.deepEqual(await first, ["done settle a"]);
  assert.deepEqual(await second, ["done settle b"]);
  assert.deepEqual(transactions, [["hold 1"], ["hold 2"], ["settle a", "settle b"]]);
});

Deno.test("write queue: deferred jobs whose delay is over go first in the batch of the jobs queued by then", async () => {
  const { transactions, write, delayOver } = heldQueue();
  const settling = write(["settle"], "deferred");
  const holding = write(["hold"]);
  // The delay ends before this turn's batch runs: the settlement comes first in it.
  delayOver();
  assert.deepEqual(await holding, ["done hold"]);
  assert.deepEqual(await settling, ["done settle"]);
  assert.deepEqual(transactions, [["settle", "hold"]]);
});

Deno.test("write queue: a job after the deferred ones cuts their delay short and runs behind them", async () => {
  const { transactions, write, delays } = heldQueue();
  const settling = write(["settle"], "deferred");
  assert.deepEqual(await write(["hold"]), ["done hold"]);
  assert.deepEqual(await write(["hold again"], "after-deferred"), ["done hold again"]);
  assert.deepEqual(await settling, ["done settle"]);
  assert.deepEqual(transactions, [["hold"], ["settle", "hold again"]]);
  // The delay whose jobs already ran ends without a transaction.
  delays.shift()!();
  assert.deepEqual(transactions, [["hold"], ["settle", "hold again"]]);
});

Deno.test("write queue: a deferred job with no company commits after its delay", async () => {
  const { transactions, write } = recordingQueue(1);
  assert.deepEqual(await write(["settle a", "settle b"], "deferred"), [
    "done settle a",
    "done settle b",
  ]);
  assert.deepEqual(transactions, [["settle a", "settle b"]]);
});

Deno.test("write queue: without a delay a deferred job runs in its turn's batch", async () => {
  const { transactions, write } = recordingQueue(0);
  const settled = write(["settle"], "deferred");
  await nextTurn();
  assert.deepEqual(transactions, [["settle"]]);
  assert.deepEqual(await settled, ["done settle"]);
});

Deno.test("write queue: a deferred job's items may grow until its batch takes it, as deferredTaken tells", async () => {
  const transactions: string[][] = [];
  const delays: (() => void)[] = [];
  let joinable: string[] | undefined = ["settle a"];
  const write = createBatchQueue<string, string>(
    (items) => {
      transactions.push([...items]);
      return items.map((item) => `done ${item}`);
    },
    {
      deferMs: 10,
      afterDelay: (callback) => delays.push(callback),
      deferredTaken: () => joinable = undefined,
    },
  );
  const settled = write(joinable, "deferred");
  joinable.push("settle b");
  delays.shift()!();
  assert.equal(joinable, undefined, "told before the batch runs");
  assert.deepEqual(await settled, ["done settle a", "done settle b"]);
  assert.deepEqual(transactions, [["settle a", "settle b"]]);
});

Deno.test("write queue: deferredTaken without a delay is refused", () => {
  assert.throws(
    () => createBatchQueue<string, string>((items) => items, { deferredTaken: () => {} }),
    /needs a delay/,
  );
});
