import assert from "node:assert/strict";
import type { IrAssistantPart } from "../../translate/ir.ts";
import { decodeResponsesResponse } from "./response_decode.ts";
import {
  CASES,
  decodeAll,
  fixtureJson,
  fixtureStream,
  foldEvents,
  hasFixture,
} from "./test_support.ts";

/** Parts as a folded stream holds them: a call's item id is not part of the fold. */
const folded = (parts: IrAssistantPart[]) =>
  parts.map((part) => {
    if (part.type !== "tool_call") return part;
    const { itemId: _, ...call } = part;
    return call;
  });

for (const name of CASES.filter((name) => hasFixture(name, "response.json"))) {
  Deno.test(`responses stream decode: ${name} transcript streams what its whole answer holds`, () => {
    const stream = foldEvents(decodeAll(fixtureStream(name)));
    const whole = decodeResponsesResponse(fixtureJson(name, "response.json"));
    assert.equal(stream.error, undefined);
    assert.equal(stream.id, whole.id);
    assert.equal(stream.model, whole.model);
    assert.deepEqual(stream.parts, folded(whole.parts));
    assert.equal(stream.finish, whole.finish);
    assert.deepEqual(stream.usage, whole.usage);
  });
}

Deno.test("responses stream decode: error_before_output is one error event and nothing else", () => {
  const message = JSON.parse(fixtureStream("error_before_output")[0]!.data).error.message;
  assert.deepEqual(decodeAll(fixtureStream("error_before_output")), [{
    type: "error",
    error: { status: 429, type: "rate_limit_exceeded", message },
  }]);
});

Deno.test("responses stream decode: error_after_output keeps the text, then response.failed", () => {
  const stream = foldEvents(decodeAll(fixtureStream("error_after_output")));
  assert.deepEqual(stream.parts, [{ type: "text", text: "Once upon a time" }]);
  assert.equal(stream.finish, undefined);
  assert.equal(stream.error?.status, 500);
  assert.equal(stream.error?.type, "server_error");
  assert.match(stream.error?.message ?? "", /^An error occurred/);
});

Deno.test("responses stream decode: error payloads of other shapes", () => {
  const flat = {
    event: "error",
    data: JSON.stringify({
      type: "error",
      code: "server_error",
      message: "boom",
      param: null,
      sequence_number: 3,
    }),
  };
  const bare = { data: JSON.stringify({ error: { type: "overloaded_error", message: "busy" } }) };
  const untyped = { event: "error", data: JSON.stringify({ message: "?" }) };
  assert.deepEqual(decodeAll([flat]), [{
    type: "error",
    error: { status: 500, type: "server_error", message: "boom" },
  }]);
  assert.deepEqual(decodeAll([bare]), [{
    type: "error",
    error: { status: 529, type: "overloaded_error", message: "busy" },
  }]);
  assert.deepEqual(decodeAll([untyped]), [{ type: "error", error: { status: 500, message: "?" } }]);
});
