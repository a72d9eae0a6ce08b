import assert from "node:assert/strict";
import { parseFields } from "./fields.ts";

const malformed = (line: string) => new Error(`bad: ${line}`);
const fields = (text: string) => parseFields(text, 0, malformed);

Deno.test("fields: names lowercase, values trimmed of blanks, repeats joined, empty values kept", () => {
  const parsed = fields(
    "Content-Type:  application/json \r\nX-A: 1\r\nx-a:2\r\nEmpty:\r\nTab:\tv\t",
  );
  assert.deepEqual([...parsed], [
    ["content-type", "application/json"],
    ["x-a", "1, 2"],
    ["empty", ""],
    ["tab", "v"],
  ]);
  assert.deepEqual([...fields("")], []);
});

Deno.test("fields: a name that is not a token, a missing colon, or CR, LF or NUL in a value is refused", () => {
  for (
    const text of [
      "no colon",
      ": no name",
      "bad name: x",
      " folded: x",
      "n\u00e9: x",
      "a: b\nc: d",
      "a: b\rc",
      "a: b\0c",
      "ok: 1\r\nbroken",
    ]
  ) {
    assert.throws(() => fields(text), /^Error: bad: /, JSON.stringify(text));
  }
});

Deno.test("fields: a refusal names the line that broke the rules", () => {
  for (
    const [text, line] of [
      ["ok: 1\r\na: b\rc\r\nz: 2", "a: b\rc"],
      ["ok: 1\r\na: b\0c", "a: b\0c"],
      ["a: b\nc: d\r\nok: 1", "a: b\nc: d"],
      ["ok: 1\r\nbad name: 2\r\nok: 3", "bad name: 2"],
    ]
  ) {
    assert.throws(() => fields(text!), { message: `bad: ${line}` }, JSON.stringify(text));
  }
});
