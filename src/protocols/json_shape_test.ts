import assert from "node:assert/strict";
import fc from "fast-check";
import { keyOtherThan, NUMBER, SCALAR, STRING_CONTENT } from "./json_shape.ts";
import { unescaped } from "./json_read.ts";

const whole = (source: string) => new RegExp(`^${source}$`);

/** What JSON.parse makes of `text`, or undefined when it throws. */
function parsed(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

// Strings full of what JSON treats specially: quotes, backslashes, escapes, control characters.
const SPECIAL = ['"', "\\", "/", "b", "n", "x", "u", "0", "0041", "D800", "\n", "\u0001", "\u007f"];
const tricky = fc.string({
  unit: fc.oneof(fc.constantFrom(...SPECIAL), fc.string({ unit: "binary", maxLength: 1 })),
});

Deno.test("json shape: a string's content matches exactly when JSON accepts it, read alike", () => {
  fc.assert(
    fc.property(tricky, (content) => {
      const json = parsed(`"${content}"`);
      assert.equal(whole(STRING_CONTENT).test(content), json !== undefined, content);
      if (json) assert.equal(unescaped(content), json.value);
    }),
    { numRuns: 5000 },
  );
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (text) => {
      const content = JSON.stringify(text).slice(1, -1);
      assert.ok(whole(STRING_CONTENT).test(content));
      assert.equal(unescaped(content), text);
    }),
  );
});

Deno.test("json shape: a number matches exactly when JSON accepts it", () => {
  const numeric = fc.string({ unit: fc.constantFrom("-", "+", "0", "1", "9", ".", "e", "E") });
  fc.assert(
    fc.property(numeric, (text) => {
      assert.equal(whole(NUMBER).test(text), typeof parsed(text)?.value === "number", text);
    }),
    { numRuns: 5000 },
  );
});

Deno.test("json shape: scalars and keys", () => {
  for (const text of ["null", "true", "false", '"a\\n"', "-1.5e3"]) {
    assert.ok(whole(SCALAR).test(text), text);
  }
  for (const text of ["nul", "[]", "{}", "'a'", "01"]) assert.ok(!whole(SCALAR).test(text), text);
  const other = whole(keyOtherThan(["type", "delta"]));
  assert.ok(other.test('"types"') && other.test('"item_id"') && other.test('"_x1"'));
  assert.ok(!other.test('"type"') && !other.test('"delta"') && !other.test('"t\\u0079pe"'));
});
