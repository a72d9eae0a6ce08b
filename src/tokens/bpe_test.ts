import assert from "node:assert/strict";
import { BpeRanks } from "./bpe.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const base64 = (text: string) => btoa(String.fromCharCode(...encode(text)));
const rankOf = (ranks: BpeRanks, text: string) => {
  const bytes = encode(text);
  return ranks.rank(bytes, 0, bytes.length);
};

Deno.test("bpe ranks: a .tiktoken file's lines are read as base64 bytes and ranks", () => {
  // "a", "b", "c", "ab", "bc", and a byte sequence that is no UTF-8 (0xff 0xfe).
  const file = "YQ== 0\nYg== 1\nYw== 2\nYWI= 7\nYmM= 4\n//4= 9\n";
  const ranks = BpeRanks.parse(encode(file));
  assert.equal(rankOf(ranks, "a"), 0);
  assert.equal(rankOf(ranks, "ab"), 7);
  assert.equal(rankOf(ranks, "bc"), 4);
  assert.equal(rankOf(ranks, "abc"), -1);
  assert.equal(rankOf(ranks, "d"), -1);
  assert.equal(rankOf(ranks, ""), -1);
  assert.equal(ranks.rank(new Uint8Array([0xff, 0xfe]), 0, 2), 9);
  assert.equal(ranks.rank(new Uint8Array([7, 0xff, 0xfe, 7]), 1, 3), 9);
  assert.equal(ranks.maxRank, 9);
  assert.equal(ranks.maxTokenBytes, 2);
});

Deno.test("bpe ranks: tokens longer than a slot holds are told apart by all their bytes", () => {
  // Tokens that share their first eight bytes (a slot holds eight), ranks out of order.
  const tokens = ["abcdefgh", "abcdefghi", "abcdefghij", "abcdefghik", "abcdefgh-long tail"];
  const ranks = [40, 3, 17, 5, 8];
  const file = tokens.map((token, i) => `${base64(token)} ${ranks[i]}`).join("\n");
  const table = BpeRanks.parse(encode(file));
  tokens.forEach((token, i) => assert.equal(rankOf(table, token), ranks[i], token));
  for (const other of ["abcdefghil", "abcdefgh-long tai", "abcdefgh-long tall", "abcdefg"]) {
    assert.equal(rankOf(table, other), -1, other);
  }
  assert.equal(table.maxTokenBytes, 18);
});

Deno.test("bpe ranks: a line that is not base64 and a rank is refused", () => {
  for (const file of ["YQ==\n", "YQ== x\n", "Y*Q= 1\n", "YQ== 1\nYg==2\n"]) {
    assert.throws(() => BpeRanks.parse(encode(file)), /Reading token ranks failed/, file);
  }
});
