import assert from "node:assert/strict";
import fc from "fast-check";
import { parseFields, splitHead } from "./fields.ts";

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

Deno.test("fields: a name that is not a token, a missing colon, or a control character in a value is refused", () => {
  for (
    const text of [
      "no colon",
      ": no name",
      "bad name: x",
      " folded: x",
      "ok: 1\r\n folded",
      "ok: 1\r\n\tfolded",
      "n\u00e9: x",
      "a: b\nc: d",
      "a: b\rc",
      "a: b\0c",
      "ok: 1\r\nbroken",
      // Control characters llhttp refuses in a value: \v and \f are no blanks.
      "content-length: \u000b42",
      "content-length: 42\u000c",
      "a: b\u0001",
      "a: \u001b[2Kb",
      "a: b\u007f",
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

Deno.test("fields: a head's bytes read one character each, ASCII or not", () => {
  const head = (...values: number[][]) => {
    const bytes = [..."HTTP/1.1 200 OK\r\n"].map((char) => char.charCodeAt(0));
    for (const value of values) {
      bytes.push(...[..."x-v: "].map((c) => c.charCodeAt(0)), ...value, 13, 10);
    }
    bytes.push(13, 10);
    return splitHead(new Uint8Array(bytes), 0, bytes.length, malformed);
  };
  assert.deepEqual(head([0x61, 0x62]).headers.get("x-v"), "ab");
  // A lone high byte, a UTF-8 pair, UTF-8's own U+FFFD and a byte order mark: each byte its code.
  for (const value of [[0xe9], [0xc3, 0xa9], [0xef, 0xbf, 0xbd], [0xef, 0xbb, 0xbf, 0x61]]) {
    assert.equal(head(value).headers.get("x-v"), String.fromCharCode(...value));
  }
  assert.equal(head([0x61]).line, "HTTP/1.1 200 OK");
});

Deno.test("fields: any well-formed fields read as their names lowercased and values trimmed", () => {
  const chars = (alphabet: string, minLength: number) =>
    fc.array(fc.constantFrom(...alphabet), { minLength, maxLength: 12 }).map((c) => c.join(""));
  const token = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  // Visible ASCII, blanks and latin1 (obs-text, U+00A0 among them: no blank to trim).
  const valueChars = 'ab:;,=/\\"~ \t\u00a0\u00e9\u00ff';
  fc.assert(
    fc.property(
      fc.array(fc.tuple(chars(token, 1), chars(valueChars, 0)), { maxLength: 8 }),
      (lines) => {
        const expected = new Map<string, string>();
        for (const [name, value] of lines) {
          const key = name.toLowerCase();
          const trimmed = value.replace(/^[ \t]+|[ \t]+$/g, "");
          const earlier = expected.get(key);
          expected.set(key, earlier === undefined ? trimmed : `${earlier}, ${trimmed}`);
        }
        const text = lines.map(([name, value]) => `${name}:${value}`).join("\r\n");
        assert.deepEqual([...fields(text)], [...expected]);
        // The same after a first line, as a head has one.
        assert.deepEqual([...parseFields(`GET / HTTP/1.1\r\n${text}`, 16, malformed)], [
          ...expected,
        ]);
      },
    ),
  );
});
