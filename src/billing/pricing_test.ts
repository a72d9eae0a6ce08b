import assert from "node:assert/strict";
import { costMicros, createPriceBook, priceOf, scaleDecimal } from "./pricing.ts";

const usage = (input: number, output: number, cached = 0, cacheWrite = 0) => ({
  input_tokens: input,
  output_tokens: output,
  cached_tokens: cached,
  cache_write_tokens: cacheWrite,
});
const group = (multiplier: number) => ({ models: ["*"], price_multiplier: multiplier });

Deno.test("pricing: scales config decimals exactly", () => {
  assert.equal(scaleDecimal(0.15, 6), 150_000n);
  assert.equal(scaleDecimal(0.075, 6), 75_000n);
  assert.equal(scaleDecimal(0.0375, 6), 37_500n);
  assert.equal(scaleDecimal(3, 6), 3_000_000n);
  assert.equal(scaleDecimal(1.1, 6), 1_100_000n);
});

Deno.test("pricing: cost follows design.md's formula in integer micro-USD", () => {
  const price = priceOf(
    { input_price: 3, output_price: 15, cached_input_price: 0.3, cache_write_price: 3.75 },
    group(1),
  );
  // 1M uncached input at $3 = 3,000,000 micros; 1M output at $15 = 15,000,000 micros.
  assert.equal(costMicros(usage(1_000_000, 1_000_000), price), 18_000_000);
  // 1000 input of which 400 cached, 100 cache writes, 50 output:
  // 500*3 + 400*0.3 + 100*3.75 + 50*15 = 1500 + 120 + 375 + 750 = 2745 micros.
  assert.equal(costMicros(usage(1000, 50, 400, 100), price), 2745);
});

Deno.test("pricing: cache prices default to the input price; multiplier applies", () => {
  const price = priceOf({ input_price: 0.15, output_price: 0.6 }, group(1.5));
  // (1000*0.15 + 1000*0.6) * 1.5 = 1125 micros, cached tokens at the input price.
  assert.equal(costMicros(usage(1000, 1000, 500), price), 1125);
});

Deno.test("pricing: an unpriced model costs nothing; fractions round half up", () => {
  assert.equal(priceOf({}, group(1)), undefined);
  assert.equal(costMicros(usage(5, 5), undefined), 0);
  const price = priceOf({ input_price: 0.15, output_price: 0 }, group(1));
  assert.equal(costMicros(usage(3, 0), price), 0); // 0.45 rounds down
  assert.equal(costMicros(usage(4, 0), price), 1); // 0.6 rounds up
});

Deno.test("price book: one computation per model and group, the same answer as priceOf", () => {
  const book = createPriceBook();
  const model = { input_price: 0.15, output_price: 0.6 };
  const group = { models: ["*"], price_multiplier: 1.5 };
  const first = book(model, group);
  assert.deepEqual(first, priceOf(model, group));
  assert.equal(book(model, group), first, "cached, not recomputed");
  assert.equal(book(undefined, group), undefined);
  assert.equal(book({}, group), undefined);
});
