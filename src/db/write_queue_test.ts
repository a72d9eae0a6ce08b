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

Deno.test("write queue: a deferred job waits for the next job and shares its transaction", async () => {
  // A delay no test run reaches: the deferred job can only go with the next job.
  const { transactions, write } = recordingQueue(60_000);
  const settled = write(["settle"], true);
  await nextTurn();
  assert.deepEqual(transactions, [], "a deferred job alone does not commit in its own turn");
  const [held] = await write(["hold"]);
  assert.equal(held, "done hold");
  assert.deepEqual(await settled, ["done settle"]);
  assert.deepEqual(transactions, [["settle", "hold"]]);
});

Deno.test("write queue: a deferred job with no company commits after its delay", async () => {
  const { transactions, write } = recordingQueue(1);
  assert.deepEqual(await write(["settle a", "settle b"], true), ["done settle a", "done settle b"]);
  assert.deepEqual(transactions, [["settle a", "settle b"]]);
});

Deno.test("write queue: without a delay a deferred job runs in its turn's batch", async () => {
  const { transactions, write } = recordingQueue(0);
  const settled = write(["settle"], true);
  await nextTurn();
  assert.deepEqual(transactions, [["settle"]]);
  assert.deepEqual(await settled, ["done settle"]);
});
