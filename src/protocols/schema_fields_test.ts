import assert from "node:assert/strict";
import fc from "fast-check";
import type * as z from "zod/mini";
import { ChatRequestSchema } from "./chat/schema.ts";
import { firstFault } from "./request.ts";
import {
  isMessage,
  MAX_TOKEN_LIMIT,
  messageList,
  MessageSchema,
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
  rule: z.ZodMiniType;
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
      assert.equal(firstFault(rule, value), undefined, `${name} accepts ${String(value)}`);
    }
    for (const value of refuses) {
      const fault = firstFault(rule, value);
      assert.ok(fault, `${name} refuses ${String(value)}`);
      assert.deepEqual(fault.path, [], `${name}: the fault is the field's own`);
      assert.ok(fault.expected.length > 0);
    }
  }
});

Deno.test("a message list's fault names the message or the role at fault", () => {
  const expected = "a non-empty array of messages";
  const fault = (value: unknown) => firstFault(messageList, value);
  assert.deepEqual(fault(undefined), { path: [], expected });
  assert.deepEqual(fault([]), { path: [], expected });
  assert.deepEqual(fault("hi"), { path: [], expected });
  assert.deepEqual(fault([{ role: "user" }, "hi"]), { path: [1], expected: "an object" });
  assert.deepEqual(fault([[{ role: "user" }]]), { path: [0], expected: "an object" });
  assert.deepEqual(fault([{ role: "user" }, { content: "x" }]), {
    path: [1, "role"],
    expected: "a string",
  });
  assert.equal(fault([{ role: "user", content: [1, 2] }, { role: "" }]), undefined);
});

Deno.test("a message list of a million bad items reports only the first", () => {
  const result = messageList.safeParse(Array.from({ length: 1_000_000 }, (_, i) => i));
  assert.deepEqual(result.error?.issues.map((issue) => issue.path), [[0]]);
});

Deno.test("isMessage, the fast test of each message, accepts just what MessageSchema does", () => {
  const samples: unknown[] = [
    { role: "user" },
    { role: "" },
    { role: 1 },
    {},
    [],
    null,
    "x",
    [{
      role: "user",
    }],
    { role: "a", content: { deep: [1] } },
    Object.create(null),
  ];
  for (const value of samples) {
    assert.equal(isMessage(value), MessageSchema.safeParse(value).success, JSON.stringify(value));
  }
  fc.assert(
    fc.property(
      fc.anything(),
      (value) => isMessage(value) === MessageSchema.safeParse(value).success,
    ),
  );
  fc.assert(
    fc.property(
      fc.record({ role: fc.anything() }, { requiredKeys: [] }),
      fc.dictionary(fc.string(), fc.jsonValue()),
      (message, rest) => {
        const value = { ...rest, ...message };
        return isMessage(value) === MessageSchema.safeParse(value).success;
      },
    ),
  );
});

Deno.test("a request's first fault is its first field at fault, in the fields' order", () => {
  const valid = { model: "m", messages: [{ role: "user" }], stream: true, extra: { any: 1 } };
  assert.equal(firstFault(ChatRequestSchema, valid), undefined);
  assert.deepEqual(
    firstFault(ChatRequestSchema, { ...valid, max_tokens: -1, stream: "yes", model: "" }),
    { path: ["model"], expected: "a non-empty string naming the model" },
  );
  assert.deepEqual(
    firstFault(ChatRequestSchema, { ...valid, max_tokens: -1, stream: "yes" }),
    { path: ["stream"], expected: "a boolean" },
  );
  assert.deepEqual(
    firstFault(ChatRequestSchema, { ...valid, messages: [{ role: "user" }, { role: 1 }] }),
    { path: ["messages", 1, "role"], expected: "a string" },
  );
});
