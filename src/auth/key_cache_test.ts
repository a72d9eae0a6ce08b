import assert from "node:assert/strict";
import { cacheKeyLookup, KEY_CACHE_TTL_MS } from "./key_cache.ts";
import { testPrincipal } from "./test_support.ts";

const KEY = testPrincipal();

Deno.test("key cache: a key looked up is known from memory for a second, then looked up again", async () => {
  let now = 0;
  const asked: string[] = [];
  const lookup = cacheKeyLookup((hash) => {
    asked.push(hash);
    return Promise.resolve(hash === "known" ? KEY : undefined);
  }, () => now);

  assert.equal(await lookup("known"), KEY);
  now += KEY_CACHE_TTL_MS - 1;
  assert.equal(await lookup("known"), KEY, "known within the second");
  assert.equal(await lookup("missing"), undefined);
  assert.equal(await lookup("missing"), undefined, "a key not found is known too");
  assert.deepEqual(asked, ["known", "missing"], "the store was asked once a key");
  now += 1;
  assert.equal(await lookup("known"), KEY);
  assert.deepEqual(asked, ["known", "missing", "known"], "after a second the store is asked again");
});

Deno.test("key cache: lookups of one key at once share the store's answer", async () => {
  let asked = 0;
  const lookup = cacheKeyLookup(() => {
    asked++;
    return Promise.resolve(KEY);
  }, () => 0);
  assert.deepEqual(await Promise.all([lookup("known"), lookup("known")]), [KEY, KEY]);
  assert.equal(asked, 1);
});

Deno.test("key cache: a failed lookup is not kept", async () => {
  let fail = true;
  let asked = 0;
  const lookup = cacheKeyLookup(() => {
    asked++;
    return fail ? Promise.reject(new Error("database gone")) : Promise.resolve(KEY);
  }, () => 0);
  await assert.rejects(async () => await lookup("known"), /database gone/);
  fail = false;
  assert.equal(await lookup("known"), KEY, "the failure was forgotten: the store is asked again");
  assert.equal(await lookup("known"), KEY);
  assert.equal(asked, 2);
});
