import assert from "node:assert/strict";
import fc from "fast-check";
import { ChatRequestSchema, isChatRequest } from "./chat/schema.ts";
import { isMessagesRequest, MessagesRequestSchema } from "./messages/schema.ts";
import { isResponsesRequest, ResponsesRequestSchema } from "./responses/schema.ts";
import { MAX_TOKEN_LIMIT } from "./schema_fields.ts";

// JSON values a field may hold, weighted toward the edges each rule draws.
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(0, 1, -1, 1.5, 64, MAX_TOKEN_LIMIT, MAX_TOKEN_LIMIT + 1, 1e300),
  fc.integer(),
  fc.constantFrom("", "gpt-4o", "user"),
  fc.string(),
);
const message = fc.oneof(
  fc.record({ role: fc.oneof(fc.string(), scalar), content: fc.string() }, { requiredKeys: [] }),
  scalar,
  fc.array(scalar, { maxLength: 2 }),
);
const value = fc.oneof(
  scalar,
  fc.array(message, { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 4 }), scalar, { maxKeys: 3 }),
);
// Values each field's rule accepts, so most generated requests are valid but for a field or two.
const limit = (least: number) => fc.integer({ min: least, max: MAX_TOKEN_LIMIT });
const ACCEPTED: Record<string, fc.Arbitrary<unknown>> = {
  model: fc.string({ minLength: 1 }),
  messages: fc.array(fc.record({ role: fc.string(), content: fc.string() }), {
    minLength: 1,
    maxLength: 3,
  }),
  input: fc.oneof(fc.string(), fc.array(scalar, { maxLength: 2 })),
  stream: fc.oneof(fc.boolean(), fc.constant(null)),
  stream_options: fc.oneof(fc.dictionary(fc.string(), scalar, { maxKeys: 2 }), fc.constant(null)),
  max_tokens: fc.oneof(limit(1), fc.constant(null)),
  max_completion_tokens: fc.oneof(limit(0), fc.constant(null)),
  max_output_tokens: fc.oneof(limit(0), fc.constant(null)),
  system: fc.oneof(fc.string(), fc.array(scalar, { maxLength: 2 }), fc.constant(null)),
};
const field = (name: string) =>
  fc.oneof(
    { weight: 8, arbitrary: ACCEPTED[name]! },
    { weight: 1, arbitrary: value },
    { weight: 1, arbitrary: fc.constant(undefined) },
  ).map((v) => [name, v]);
const body = (names: string[]) =>
  fc.tuple(...names.map(field)).map((fields) =>
    Object.fromEntries(fields.filter(([, v]) => v !== undefined)) as Record<string, unknown>
  );

Deno.test("request checks: each accepts exactly what its schema accepts", () => {
  const cases = [
    {
      check: isChatRequest,
      schema: ChatRequestSchema,
      fields: [
        "model",
        "messages",
        "stream",
        "stream_options",
        "max_tokens",
        "max_completion_tokens",
      ],
    },
    {
      check: isMessagesRequest,
      schema: MessagesRequestSchema,
      fields: ["model", "messages", "max_tokens", "stream", "system"],
    },
    {
      check: isResponsesRequest,
      schema: ResponsesRequestSchema,
      fields: ["model", "input", "stream", "max_output_tokens"],
    },
  ];
  for (const { check, schema, fields } of cases) {
    let accepted = 0;
    fc.assert(
      fc.property(body(fields), (request) => {
        const ok = check(request);
        assert.equal(ok, schema.safeParse(request).success, JSON.stringify(request));
        if (ok) accepted++;
      }),
      { numRuns: 3_000 },
    );
    // Enough of them valid that the property is about acceptance too, not only refusals.
    assert.ok(accepted > 300, `${fields.join(",")}: ${accepted} of 3000 accepted`);
  }
  // Requests each accepts, so the property is not only ever about refusals.
  assert.equal(
    isChatRequest({ model: "m", messages: [{ role: "user", content: "hi" }], stream: null }),
    true,
  );
  assert.equal(
    isMessagesRequest({ model: "m", messages: [{ role: "user" }], max_tokens: 1, system: [] }),
    true,
  );
  assert.equal(isResponsesRequest({ model: "m", input: "hi", max_output_tokens: 0 }), true);
});
