import assert from "node:assert/strict";
import { createDeadlines } from "./deadlines.ts";

/** Deadlines whose expiry resolves a promise with its message. */
function watched(totalMs: number) {
  const expiry = Promise.withResolvers<string>();
  const expired: string[] = [];
  const deadlines = createDeadlines(totalMs, "total", (message) => {
    expired.push(message);
    expiry.resolve(message);
  });
  return { deadlines, expired, expiry: expiry.promise };
}

Deno.test("deadlines: a wait that outlives its time expires with its own message", async () => {
  const { deadlines, expired, expiry } = watched(60_000);
  deadlines.wait(5, "no headers");
  assert.equal(await expiry, "no headers");
  deadlines.stop();
  assert.deepEqual(expired, ["no headers"]);
});

Deno.test("deadlines: an ended wait does not expire; the total deadline still does", async () => {
  const { deadlines, expiry } = watched(30);
  const first = deadlines.wait(5, "no headers");
  first.end();
  // The timer was set for the ended wait: it fires, finds nothing due, and re-arms.
  deadlines.wait(60_000, "no body");
  assert.equal(await expiry, "total");
  deadlines.stop();
});

Deno.test("deadlines: nothing expires after stop", async () => {
  const { deadlines, expired } = watched(1);
  deadlines.wait(1, "no headers");
  deadlines.stop();
  // A later timer of our own: by the time it runs, a live 1 ms deadline would have fired.
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(expired, []);
});

Deno.test("deadlines: a repeated wait expires when one of its waits outlives its time", async () => {
  const { deadlines, expiry } = watched(60_000);
  const idle = deadlines.repeated(5, "idle");
  idle.start();
  idle.end();
  idle.start();
  assert.equal(await expiry, "idle");
  deadlines.stop();
});

Deno.test("deadlines: a repeated wait that ended does not expire; the total deadline still does", async () => {
  const { deadlines, expiry } = watched(30);
  const idle = deadlines.repeated(5, "idle");
  for (let read = 0; read < 3; read++) {
    const started = idle.start();
    assert.ok(idle.end() >= started);
  }
  assert.equal(await expiry, "total");
  deadlines.stop();
});
