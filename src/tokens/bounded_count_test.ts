import assert from "node:assert/strict";
import fc from "fast-check";
import { countTokens } from "gpt-tokenizer";
import { ordinaryTexts, pathologicalTexts } from "../../tests/token_texts.ts";
import { DEFAULT_BOUNDS } from "./bounded_count.ts";
import { O200K_COUNTER, O200K_RANKS } from "./o200k.ts";
import { O200K_SPLIT } from "./o200k_split.ts";
import { PieceCounter } from "./piece_count.ts";

/** gpt-tokenizer's exact count, special-token markers as plain text as ours are. */
const theirs = (text: string) => countTokens(text, { disallowedSpecial: new Set() });

/** The most work one chunk can add past the budget: ~400 characters of the costliest kind. */
const CHUNK_WORK = 40_000;

Deno.test("bounded count: short texts are counted exactly, as gpt-tokenizer counts them", () => {
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
    "",
  ];
  for (const text of texts) {
    assert.deepEqual(
      { tokens: O200K_COUNTER.tally(text).tokens, exact: O200K_COUNTER.tally(text).exact },
      { tokens: theirs(text), exact: true },
      JSON.stringify(text),
    );
  }
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
        fc.string({ unit, maxLength: 600 }),
      ),
      (text) => {
        const tally = O200K_COUNTER.tally(text);
        assert.ok(tally.exact, JSON.stringify(text));
        assert.equal(tally.tokens, theirs(text), JSON.stringify(text));
      },
    ),
    { numRuns: 3_000 },
  );
});

Deno.test("bounded count: a text within the budget is counted exactly in chunks", () => {
  // ~60 KB of each ordinary kind: hundreds of chunks, all counted, their sum exact.
  for (const [kind, text] of Object.entries(ordinaryTexts())) {
    const sample = text.slice(0, 60_000);
    const tally = O200K_COUNTER.tally(sample);
    assert.equal(tally.exact, true, kind);
    assert.equal(tally.tokens, theirs(sample), kind);
  }
});

Deno.test("bounded count: every hard kind of text, 1 MB or 8 MiB, costs at most the budget", () => {
  // Unbounded, linear: the reference for what the estimates should come near.
  const pieces = new PieceCounter(O200K_RANKS, O200K_SPLIT, DEFAULT_BOUNDS.mergeBytes);
  for (const bytes of [1_000_000, 8 * 1024 * 1024]) {
    for (const [kind, text] of Object.entries(pathologicalTexts(bytes))) {
      const tally = O200K_COUNTER.tally(text);
      assert.ok(tally.work <= DEFAULT_BOUNDS.work + CHUNK_WORK, `${kind}: work ${tally.work}`);
      // An estimate, and a plausible one: the tokens per character of the first 256 Ki
      // characters counted whole, give or take 5% (these texts are alike throughout).
      const sample = text.slice(0, 262_144);
      const expected = (pieces.count(sample) / sample.length) * text.length;
      assert.equal(tally.exact, false, kind);
      assert.ok(
        Math.abs(tally.tokens / expected - 1) < 0.05,
        `${kind}: ${tally.tokens} ~ ${expected}`,
      );
    }
  }
});

Deno.test("bounded count: an estimate of ordinary text is under its exact count, by under 2%", () => {
  const texts = ordinaryTexts();
  for (const [kind, whole] of Object.entries(texts)) {
    // Counted nearly whole (a few ends cut where no clean cut was near), and estimated.
    for (const text of [whole.slice(0, 100_000), whole.slice(0, 300_000), whole]) {
      const name = `${kind}, ${text.length} characters`;
      const tally = O200K_COUNTER.tally(text);
      // One text, one count: what was counted before does not move where the budget ends.
      O200K_COUNTER.tally(texts.code.slice(0, 100_000));
      assert.equal(O200K_COUNTER.tally(text).tokens, tally.tokens, name);
      const exact = theirs(text);
      assert.ok(tally.tokens <= exact, `${name}: ${tally.tokens} over ${exact}`);
      assert.ok(tally.tokens >= exact * 0.98, `${name}: ${tally.tokens} under 98% of ${exact}`);
      if (text === whole) assert.equal(tally.exact, false, `${name} is over the budget`);
    }
  }
});

Deno.test("bounded count: fit finds the longest prefix of whole pieces within a limit", () => {
  const text = "Hello there, how are you?";
  assert.equal(O200K_COUNTER.fit(text, 3), "Hello there,".length);
  assert.equal(O200K_COUNTER.fit(text, 0), 0);
  assert.equal(O200K_COUNTER.fit(text, 1_000), text.length);
  const long = ordinaryTexts().prose;
  const end = O200K_COUNTER.fit(long, 5_000);
  const within = theirs(long.slice(0, end));
  assert.ok(within <= 5_000 && within > 4_990, `${within}`);
  // Past the work budget, the end is placed by the rate so far: near, not exact.
  const far = O200K_COUNTER.fit(long, 150_000);
  assert.ok(Math.abs(theirs(long.slice(0, far)) / 150_000 - 1) < 0.1, `${far}`);
});
