import assert from "node:assert/strict";
import { cacheKeyLookup, KEY_CACHE_TTL_MS } from "./key_cache.ts";
import { testPrincipal } from "./test_support.ts";

const KEY = testPrincipal();

Deno.test("key cache: a key looked up is known at once for a second, then looked up again", async () => {
  let now = 0;
  const asked: string[] = [];
  const lookup = cacheKeyLookup((hash) => {
    asked.push(hash);
    return Promise.resolve(hash === "known" ? KEY : undefined);
  }, () => now);

  const first = lookup("known");
  assert.ok(first instanceof Promise, "the first lookup goes to the store");
  assert.equal(await first, KEY);
  now += KEY_CACHE_TTL_MS - 1;
  assert.equal(lookup("known"), KEY, "known within the second: no promise");
  assert.equal(await lookup("missing"), undefined);
  assert.equal(lookup("missing"), undefined, "a key not found is known too");
  now += 1;
  const again = lookup("known");
  assert.ok(again instanceof Promise, "after a second the store is asked again");
  assert.equal(await again, KEY);
  assert.deepEqual(asked, ["known", "missing", "known"]);
});

Deno.test("key cache: a failed lookup is not kept", async () => {
  let fail = true;
  const lookup = cacheKeyLookup(
    () => fail ? Promise.reject(new Error("database gone")) : Promise.resolve(KEY),
    () => 0,
  );
  await assert.rejects(async () => await lookup("known"), /database gone/);
  fail = false;
  const retried = lookup("known");
  assert.ok(retried instanceof Promise, "the failure was forgotten: the store is asked again");
  assert.equal(await retried, KEY);
  assert.equal(lookup("known"), KEY);
});
