import assert from "node:assert/strict";
import fc from "fast-check";
import { O200K_RANKS } from "./o200k.ts";
import { O200K_SPLIT, o200kAsciiEnd, o200kCleanCut } from "./o200k_split.ts";
import { PieceCounter } from "./piece_count.ts";

const encoder = new TextEncoder();

/** The pieces of `text` as the pattern cuts it. */
function patternPieces(text: string): string[] {
  return [...text.matchAll(O200K_SPLIT.pattern)].map(([piece]) => piece);
}

/**
 * The pieces of `text` as the hand-written split cuts it, the pattern taking over where it
 * gives up (as piece_count.ts does); and how many the hand-written split found itself.
 */
function splitPieces(text: string): { pieces: string[]; byHand: number } {
  const bytes = encoder.encode(text);
  const pattern = new RegExp(O200K_SPLIT.pattern.source, "uy");
  const pieces: string[] = [];
  let byHand = 0;
  let char = 0;
  for (let at = 0; at < bytes.length;) {
    let end = o200kAsciiEnd(bytes, at, bytes.length);
    let charEnd = char + end - at;
    if (end < 0) {
      pattern.lastIndex = char;
      assert.ok(pattern.test(text));
      charEnd = pattern.lastIndex;
      end = at + encoder.encode(text.slice(char, charEnd)).length;
    } else {
      byHand++;
    }
    pieces.push(text.slice(char, charEnd));
    char = charEnd;
    at = end;
  }
  return { pieces, byHand };
}

Deno.test("o200k split: the hand-written ASCII split cuts as the pattern does", () => {
  const texts = [
    "Hello, World! 123456789 don't WE'LL they're I'M she'd it's",
    "   leading spaces\n\n\ttabs\r\n  \n  indented\n",
    "function f(x) {\n\treturn x * 2; // twice\n}\n\n/* c */ a/b //x\n/y",
    "camelCaseWordsAndACRONYMSInside HTTPServer XMLHttpRequest",
    '{"key": "value", "n": [1, 22, 333, 4444], "nested": {"a": null}}',
    "a  b   c\t\td \u000b\u000c e\r\rf",
    "'s 'S 'll 'LL 'Ve 're x'sa x'llama x'",
    "\x00\x01\x1f\x7f control ~!@#$%^&*()_+-={}|[]\\:\";'<>?,./",
    "end with space ",
    "end with newline\n",
    " ",
    "",
  ];
  for (const text of texts) assert.deepEqual(splitPieces(text).pieces, patternPieces(text), text);
  // The hand-written split does cut ASCII text itself, the pattern only past ASCII.
  assert.equal(splitPieces(texts[0]!).byHand, patternPieces(texts[0]!).length);
  const ascii = fc.constantFrom(
    ..." \t\n\r\u000b\u000c'/.,;:!?-_()[]{}\"\\aAbBsSlLvVeErRdDmMtTzZ0123456789\x00\x7f",
  );
  const past = fc.constantFrom("é", "É", "\u00a0", "\u3000", "\u0301", "日", "😀", "١", "\u2028");
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ unit: ascii, maxLength: 60 }),
        fc.string({ unit: fc.oneof(ascii, ascii, ascii, past), maxLength: 60 }),
        fc.string({ unit: "grapheme-ascii", maxLength: 60 }),
      ),
      (text) =>
        assert.deepEqual(splitPieces(text).pieces, patternPieces(text), JSON.stringify(text)),
    ),
    { numRuns: 5_000 },
  );
});

Deno.test("o200k split: a clean cut changes no piece", () => {
  const pieces = new PieceCounter(O200K_RANKS, O200K_SPLIT, 4_092);
  const unit = fc.constantFrom(
    " ",
    " ",
    "\n",
    "\n",
    "\r",
    "\t",
    "/",
    "a",
    "B",
    "1",
    ".",
    "'",
    "é",
    "\u3000",
  );
  fc.assert(
    fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
      const whole = pieces.count(text);
      for (let at = 1; at < text.length; at++) {
        if (!o200kCleanCut(text, at)) continue;
        const parts = pieces.count(text.slice(0, at)) + pieces.count(text.slice(at));
        assert.equal(parts, whole, `${JSON.stringify(text)} cut at ${at}`);
      }
    }),
    { numRuns: 3_000 },
  );
});
