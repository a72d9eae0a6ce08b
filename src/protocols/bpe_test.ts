import assert from "node:assert/strict";
import fc from "fast-check";
import { countTokens } from "gpt-tokenizer";
import { BpeRanks } from "./bpe.ts";
import { countO200k } from "./o200k.ts";

const encode = (text: string) => new TextEncoder().encode(text);
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
  assert.equal(ranks.rank(new Uint8Array([0xff, 0xfe]), 0, 2), 9);
  // A piece is merged pair by pair, the lowest rank first: "bc" (4), then no "abc": 2 parts.
  assert.equal(ranks.countParts(encode("abc"), 3), 2);
  assert.equal(ranks.countParts(encode("ab"), 2), 1);
  assert.equal(ranks.countParts(encode("cab"), 3), 2);
});

Deno.test("bpe ranks: a line that is not base64 and a rank is refused", () => {
  for (const file of ["YQ==\n", "YQ== x\n", "Y*Q= 1\n", "YQ== 1\nYg==2\n"]) {
    assert.throws(() => BpeRanks.parse(encode(file)), /Reading token ranks failed/, file);
  }
});

Deno.test("the compact o200k_base counts as gpt-tokenizer's does", () => {
  // The compact counter itself, not loadTokenCounter: its fallback is gpt-tokenizer's encoder.
  const count = countO200k;
  const theirs = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
  const texts = [
    "Hello, World! 123456789 don't WE'LL",
    "   leading spaces\n\n\ttabs\r\n",
    "日本語のテキストとEnglish mixed, Ελληνικά Русский العربية हिन्दी",
    "emoji 😀👍🏽 and a family 👨‍👩‍👧",
    "<|endoftext|> a marker <|im_start|>",
    "function f(x) {\n\treturn x * 2; // twice\n}",
    "a".repeat(3000),
    " ".repeat(2000) + "x",
    "=".repeat(300) + "\n" + "-".repeat(77),
    "\uD800 lone surrogates \uDC00",
  ];
  for (const text of texts) assert.equal(count(text), theirs(text), JSON.stringify(text));
  const unit = fc.constantFrom(
    " ",
    "\n",
    "\t",
    "a",
    "A",
    "1",
    "'",
    "s",
    "é",
    "日",
    "!",
    "😀",
    "ll",
  );
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ unit: "grapheme", maxLength: 120 }),
        fc.string({ unit: "binary", maxLength: 120 }),
        fc.string({ unit, maxLength: 80 }),
      ),
      (text) => assert.equal(count(text), theirs(text), JSON.stringify(text)),
    ),
    { numRuns: 3_000 },
  );
});
