import assert from "node:assert/strict";
import fc from "fast-check";
import { BpeRanks } from "./bpe.ts";
import { BpeMerger, MAX_MERGE_BYTES } from "./bpe_merge.ts";
import { O200K_RANKS } from "./o200k.ts";

/** tiktoken's merge as it is written: every pair scanned for each merge, O(n²). */
function referenceCount(ranks: BpeRanks, bytes: Uint8Array): number {
  const starts = Array.from({ length: bytes.length + 1 }, (_, i) => i);
  for (;;) {
    let at = -1;
    let lowest = Infinity;
    for (let i = 0; i + 2 < starts.length; i++) {
      const rank = ranks.rank(bytes, starts[i]!, starts[i + 2]!);
      if (rank >= 0 && rank < lowest) {
        lowest = rank;
        at = i;
      }
    }
    if (at < 0) return starts.length - 1;
    starts.splice(at + 1, 1);
  }
}

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("bpe merge: the lowest rank first, the leftmost of equals", () => {
  // "a" 0, "b" 1, "c" 2, "ab" 7, "bc" 4, "aa" 5, "aaa" 6.
  const file = ["YQ== 0", "Yg== 1", "Yw== 2", "YWI= 7", "YmM= 4", "YWE= 5", "YWFh 6"].join("\n");
  const merger = new BpeMerger(BpeRanks.parse(encode(file)));
  const count = (text: string) => merger.count(encode(text), 0, text.length);
  assert.equal(count("abc"), 2); // "bc" (4) before "ab" (7): a|bc
  assert.equal(count("ab"), 1);
  assert.equal(count("cab"), 2);
  assert.equal(count("aaaa"), 2); // aa|aa, then no "aaaa"
  assert.equal(count("aaaaa"), 2); // aa|aa|a, then "aaa" (6): aa|aaa
  assert.equal(count(""), 0);
  assert.equal(count("d"), 1);
  // Past 16 bytes the heap merges, with the same results.
  const long = "abcaaaabcab".repeat(9);
  assert.equal(count(long), referenceCount(BpeRanks.parse(encode(file)), encode(long)));
});

Deno.test("bpe merge: o200k pieces count as tiktoken's merge does, short and long", () => {
  const merger = new BpeMerger(O200K_RANKS);
  const piece = fc.oneof(
    fc.string({
      unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz"),
      minLength: 1,
      maxLength: 400,
    }),
    fc.string({ unit: fc.constantFrom(" ", "\t", "x", "=", "-"), minLength: 1, maxLength: 400 }),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 120 }),
    fc.uint8Array({ minLength: 1, maxLength: 300 }),
  );
  fc.assert(
    fc.property(piece, (value) => {
      const bytes = typeof value === "string" ? encode(value) : value;
      assert.equal(merger.count(bytes, 0, bytes.length), referenceCount(O200K_RANKS, bytes));
    }),
    { numRuns: 400 },
  );
});

Deno.test("bpe merge: a long piece's work grows with its length, not its square", () => {
  const merger = new BpeMerger(O200K_RANKS);
  const letters = "qwertyuiopasdfghjklzxcvbnm";
  let seed = 7;
  const piece = encode(
    Array.from(
      { length: MAX_MERGE_BYTES },
      () => letters[(seed = (seed * 48271) % 2147483647) % 26],
    )
      .join(""),
  );
  const workOf = (length: number) => {
    const before = merger.work;
    merger.count(piece, 0, length);
    return merger.work - before;
  };
  const short = workOf(256);
  const long = workOf(MAX_MERGE_BYTES);
  // 16 times the bytes: the heap's log adds a little; a quadratic merge would be 256 times.
  assert.ok(long < short * 16 * 1.6, `${short} -> ${long}`);
  assert.throws(() => merger.count(new Uint8Array(MAX_MERGE_BYTES + 1), 0, MAX_MERGE_BYTES + 1));
});
