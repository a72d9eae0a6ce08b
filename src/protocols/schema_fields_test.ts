import assert from "node:assert/strict";
import { CHAT_REQUEST_FIELDS } from "./chat/schema.ts";
import {
  type FieldRule,
  firstFault,
  MAX_TOKEN_LIMIT,
  messageList,
  model,
  nullish,
  optionalBoolean,
  optionalNonNegativeInt,
  optionalObject,
  positiveInt,
  stringOrArray,
} from "./schema_fields.ts";

interface RuleCase {
  name: string;
  rule: FieldRule;
  accepts: unknown[];
  refuses: unknown[];
}

const RULES: RuleCase[] = [
  {
    name: "model",
    rule: model,
    accepts: ["gpt-4o", "x"],
    refuses: ["", undefined, null, 1, ["gpt-4o"], {}],
  },
  {
    name: "optionalBoolean",
    rule: optionalBoolean,
    accepts: [true, false, null, undefined],
    refuses: ["true", 0, 1, {}, []],
  },
  {
    name: "optionalObject",
    rule: optionalObject,
    accepts: [{}, { include_usage: true }, null, undefined],
    refuses: [true, "x", [], [{}], 0],
  },
  {
    name: "optionalNonNegativeInt",
    rule: optionalNonNegativeInt,
    accepts: [0, 1, MAX_TOKEN_LIMIT, null, undefined],
    refuses: [-1, 1.5, MAX_TOKEN_LIMIT + 1, 1e300, NaN, Infinity, "5", true],
  },
  {
    name: "positiveInt",
    rule: positiveInt,
    accepts: [1, 4096, MAX_TOKEN_LIMIT],
    refuses: [0, -1, 2.5, MAX_TOKEN_LIMIT + 1, null, undefined, "1"],
  },
  {
    name: "stringOrArray",
    rule: stringOrArray("a string or an array"),
    accepts: ["", "hi", [], [1, "x"]],
    refuses: [null, undefined, 3, {}, true],
  },
  {
    name: "nullish(stringOrArray)",
    rule: nullish(stringOrArray("a string or an array")),
    accepts: ["", [], null, undefined],
    refuses: [3, {}, false],
  },
];

Deno.test("each field rule accepts what its field may hold and refuses the rest", () => {
  for (const { name, rule, accepts, refuses } of RULES) {
    for (const value of accepts) {
      assert.equal(rule(value), undefined, `${name} accepts ${String(value)}`);
    }
    for (const value of refuses) {
      const fault = rule(value);
      assert.ok(fault, `${name} refuses ${String(value)}`);
      assert.deepEqual(fault.path, [], `${name}: the fault is the field's own`);
      assert.ok(fault.expected.length > 0);
    }
  }
});

Deno.test("a message list's fault names the message or the role at fault", () => {
  const expected = "a non-empty array of messages";
  assert.deepEqual(messageList(undefined), { path: [], expected });
  assert.deepEqual(messageList([]), { path: [], expected });
  assert.deepEqual(messageList("hi"), { path: [], expected });
  assert.deepEqual(messageList([{ role: "user" }, "hi"]), { path: [1], expected: "an object" });
  assert.deepEqual(messageList([[{ role: "user" }]]), { path: [0], expected: "an object" });
  assert.deepEqual(messageList([{ role: "user" }, { content: "x" }]), {
    path: [1, "role"],
    expected: "a string",
  });
  assert.equal(messageList([{ role: "user", content: [1, 2] }, { role: "" }]), undefined);
});

Deno.test("a request's first fault is its first field at fault, in the fields' order", () => {
  const valid = { model: "m", messages: [{ role: "user" }], stream: true, extra: { any: 1 } };
  assert.equal(firstFault(valid, CHAT_REQUEST_FIELDS), undefined);
  assert.deepEqual(
    firstFault({ ...valid, max_tokens: -1, stream: "yes", model: "" }, CHAT_REQUEST_FIELDS),
    { path: ["model"], expected: "a non-empty string naming the model" },
  );
  assert.deepEqual(
    firstFault({ ...valid, max_tokens: -1, stream: "yes" }, CHAT_REQUEST_FIELDS),
    { path: ["stream"], expected: "a boolean" },
  );
  assert.deepEqual(
    firstFault({ ...valid, messages: [{ role: "user" }, { role: 1 }] }, CHAT_REQUEST_FIELDS),
    { path: ["messages", 1, "role"], expected: "a string" },
  );
});
