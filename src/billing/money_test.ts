import assert from "node:assert/strict";
import { formatUsd, microsToUsd, usdToMicros } from "./money.ts";

Deno.test("usdToMicros parses decimal strings exactly", () => {
  const cases: [string | number, number][] = [
    ["0.1", 100_000],
    ["0.000001", 1],
    ["12.5", 12_500_000],
    ["12.50", 12_500_000],
    ["0", 0],
    ["7", 7_000_000],
    [".25", 250_000],
    ["3.", 3_000_000],
    [" 1.000001 ", 1_000_001],
    ["0.1000000", 100_000],
    [0.1, 100_000],
    [0.3, 300_000],
    [19.99, 19_990_000],
    [1234567.123456, 1_234_567_123_456],
  ];
  for (const [input, expected] of cases) {
    assert.equal(usdToMicros(input), expected, `input ${JSON.stringify(input)}`);
  }
});

Deno.test("usdToMicros rejects negatives, excess decimals and non-numbers", () => {
  for (const input of ["-1", "-0.5", -2, "0.0000001", 1e-7, "abc", "", ".", "1e3", "1,5", "NaN"]) {
    assert.throws(() => usdToMicros(input), RangeError, `input ${JSON.stringify(input)}`);
  }
  assert.throws(() => usdToMicros("0.0000001"), /more than 6 decimals/);
  assert.throws(() => usdToMicros("-1"), /negative/);
  assert.throws(() => usdToMicros("99999999999999"), /too large/);
});

Deno.test("microsToUsd rounds to 6 places without float noise", () => {
  assert.equal(microsToUsd(100_000), 0.1);
  assert.equal(microsToUsd(300_000), 0.3);
  assert.equal(microsToUsd(1), 0.000001);
  assert.equal(microsToUsd(19_990_000), 19.99);
  assert.equal(microsToUsd(0), 0);
});

Deno.test("formatUsd keeps 2 to 6 decimals", () => {
  assert.equal(formatUsd(12_500_000), "12.50");
  assert.equal(formatUsd(0), "0.00");
  assert.equal(formatUsd(125), "0.000125");
  assert.equal(formatUsd(1_234_500), "1.2345");
  assert.equal(formatUsd(-500_000), "-0.50");
});
