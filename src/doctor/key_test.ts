import assert from "node:assert/strict";
import { checkKey, redactKey, redactKeyIn } from "./key.ts";

Deno.test("redactKey: prefix and last four characters, never more of a short key", () => {
  assert.equal(redactKey("sk-0123456789abcdefghijklmnopqrstuvwxyzABCD"), "sk-…ABCD");
  assert.equal(redactKey("0123456789abcdefWXYZ"), "…WXYZ");
  assert.equal(redactKey("sk-short"), "sk-…");
  assert.equal(redactKey(" sk-0123456789abcdefWXYZ\n"), "sk-…WXYZ");
});

Deno.test("redactKeyIn: replaces every occurrence of the key", () => {
  const key = "sk-0123456789abcdefWXYZ";
  assert.equal(
    redactKeyIn(`Incorrect API key provided: ${key}. (${key})`, key),
    "Incorrect API key provided: sk-…WXYZ. (sk-…WXYZ)",
  );
});

Deno.test("checkKey: whitespace and line breaks a copy picked up", () => {
  const codes = (key: string) => checkKey(key).map((finding) => finding.code);
  assert.deepEqual(codes("sk-abc"), []);
  assert.deepEqual(codes("sk-abc\n"), ["key_line_break"]);
  assert.deepEqual(codes(" sk-abc"), ["key_whitespace"]);
  assert.deepEqual(codes("sk-a bc"), ["key_inner_whitespace"]);
  assert.deepEqual(codes("  "), ["key_empty"]);
});
