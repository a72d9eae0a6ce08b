import assert from "node:assert/strict";
import fc from "fast-check";
import { withFirstMember, withTopLevelString } from "./json_splice.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const splice = (text: string, value = "upstream-model") =>
  withTopLevelString(encode(text), "model", value);

Deno.test("json splice: only the top-level model's value changes, every other byte stays", () => {
  const text = '{ "max_tokens":64,"model" : "client-model",\n' +
    ' "messages":[{"role":"user","content":"caf\\u00e9 \\/ \\"model\\": {x} ok"}],' +
    '"tools":[{"model":"nested","a":[1,{"b":"]}"}]}],"x":-1.5e3,"y":true,"z":null }';
  const out = decode(splice(text)!);
  assert.equal(out, text.replace('"client-model"', '"upstream-model"'));
});

Deno.test("json splice: a name written with escapes is the name the parse reads", () => {
  assert.equal(
    decode(splice('{"mod\\u0065l":"a","x\\"":1}')!),
    '{"mod\\u0065l":"upstream-model","x\\"":1}',
  );
  assert.equal(splice('{"mod\\u0065l":"a","model":"b"}'), undefined);
});

Deno.test("json splice: a model written once is found without reading what follows it", () => {
  // What follows is not even JSON: the members after the only `"model"` are not read.
  assert.equal(
    decode(splice('{"model":"a", "rest": ]]]')!),
    '{"model":"upstream-model", "rest": ]]]',
  );
  // Written once, but inside a value: no member has that name.
  assert.equal(splice('{"a":"say \\"model","b":1}'), undefined);
});

Deno.test("json splice: bytes around the value are the client's, a byte-order mark and non-ASCII included", () => {
  const text = '{"messages":[{"content":"é ✓ 🎉"}],"model":"a","z":"ü"}';
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encode(text)]);
  const out = withTopLevelString(bytes, "model", "b")!;
  assert.deepEqual(out, new Uint8Array([0xef, 0xbb, 0xbf, ...encode(text.replace('"a"', '"b"'))]));
});

Deno.test("json splice: a value needing escapes is written as JSON", () => {
  const out = decode(splice('{"model":"m"}', 'a "quoted" é\\')!);
  assert.equal(out, '{"model":"a \\"quoted\\" é\\\\"}');
  assert.equal(JSON.parse(out).model, 'a "quoted" é\\');
});

Deno.test("json splice: refuses what it cannot replace exactly", () => {
  const refused = [
    '{"model":"a","model":"b"}', // the parse keeps the last: which one is meant is not ours
    '{"model":null}',
    '{"model":7}',
    '{"messages":[]}',
    "{}",
    '["model","a"]',
    '{"model":"unterminated}',
  ];
  for (const text of refused) assert.equal(splice(text), undefined, text);
});

Deno.test("json splice: any object's top-level model is replaced and nothing else moves", () => {
  const member = fc.tuple(
    fc.string().filter((key) => key !== "model"),
    fc.jsonValue(),
  );
  fc.assert(
    fc.property(
      fc.array(member, { maxLength: 6 }),
      fc.nat(6),
      fc.string(),
      fc.string(),
      fc.constantFrom(undefined, 2, "\t"),
      (members, position, model, mapped, indent) => {
        const entries = [...members];
        entries.splice(Math.min(position, entries.length), 0, ["model", model]);
        const object = Object.fromEntries(entries);
        // Later duplicates of a key collapse in the object: write what the object holds.
        const text = JSON.stringify(object, null, indent);
        const out = splice(text, mapped);
        assert.ok(out, text);
        assert.deepEqual(JSON.parse(decode(out)), { ...JSON.parse(text), model: mapped });
        // The member as written, key included: the model's text alone may also end the key
        // (a model of ":" reads `":"` right after `"model`).
        const key = indent === undefined ? '"model":' : '"model": ';
        const parts = text.split(`${key}${JSON.stringify(model)}`);
        if (parts.length === 2) {
          assert.equal(decode(out), `${parts[0]}${key}${JSON.stringify(mapped)}${parts[1]}`);
        }
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("json splice: a member written first keeps the rest as it came", () => {
  const first = (text: string) => decode(withFirstMember(encode(text), '"a":1'));
  assert.equal(first('{"b":2}'), '{"a":1,"b":2}');
  assert.equal(first(' {\n  "b" : [ ] }'), ' {"a":1,\n  "b" : [ ] }');
  assert.equal(first("{ }"), '{"a":1 }');
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...encode('{"b":2}')]);
  assert.deepEqual(
    withFirstMember(bom, '"a":1'),
    new Uint8Array([0xef, 0xbb, 0xbf, ...encode('{"a":1,"b":2}')]),
  );
});
