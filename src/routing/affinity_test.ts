import assert from "node:assert/strict";
import { createAffinityTable } from "./affinity.ts";

const TTL = 1_000;
const at = (channel: string, key?: string) => ({ channel, key });

/** A table on a clock the test moves. */
function table(capacity?: number) {
  let now = 0;
  const bindings = createAffinityTable({ now: () => now, capacity });
  return { bindings, advance: (ms: number) => void (now += ms) };
}

Deno.test("affinity table: a binding is found until it has been idle longer than the TTL", () => {
  const { bindings, advance } = table();
  assert.equal(bindings.find("c", TTL), undefined);
  bindings.bind("c", at("a", "k1"), TTL);
  assert.deepEqual(bindings.find("c", TTL), at("a", "k1"));
  advance(TTL);
  assert.deepEqual(bindings.find("c", TTL), at("a", "k1"), "idle exactly the TTL: still bound");
  advance(1);
  assert.equal(bindings.find("c", TTL), undefined);
  assert.equal(bindings.size, 0, "an expired binding found is let go");
});

Deno.test("affinity table: binding again moves a conversation and restarts its idle time", () => {
  const { bindings, advance } = table();
  bindings.bind("c", at("a", "k1"), TTL);
  advance(900);
  bindings.bind("c", at("b", "k2"), TTL);
  advance(900);
  assert.deepEqual(bindings.find("c", TTL), at("b", "k2"));
  assert.equal(bindings.size, 1);
  // A longer TTL after a reload keeps what a shorter one would have let go.
  advance(900);
  assert.equal(bindings.find("c", TTL), undefined);
  bindings.bind("d", at("a"), TTL);
  advance(1_500);
  assert.deepEqual(bindings.find("d", 2_000), at("a"));
});

Deno.test("affinity table: at capacity the least recently served conversation makes room", () => {
  const { bindings, advance } = table(3);
  for (const name of ["one", "two", "three"]) {
    bindings.bind(name, at(name), TTL);
    advance(1);
  }
  // Served again, "one" is now the most recent: "two" is the oldest.
  bindings.bind("one", at("one"), TTL);
  bindings.bind("four", at("four"), TTL);
  assert.equal(bindings.size, 3);
  assert.equal(bindings.find("two", TTL), undefined);
  for (const name of ["one", "three", "four"]) assert.ok(bindings.find(name, TTL), name);
  // Finding is not serving: it does not save "three" from being the next to go.
  bindings.bind("five", at("five"), TTL);
  assert.equal(bindings.find("three", TTL), undefined);
  assert.equal(bindings.size, 3);
});

Deno.test("affinity table: binding lets go of every conversation idle past the TTL", () => {
  const { bindings, advance } = table();
  bindings.bind("old", at("a"), TTL);
  bindings.bind("old too", at("a"), TTL);
  advance(TTL + 1);
  bindings.bind("recent", at("a"), TTL);
  advance(10);
  bindings.bind("new", at("b"), TTL);
  assert.equal(bindings.size, 2, "only the two served within the TTL stay");
});
