import assert from "node:assert/strict";
import { GatewayError } from "../errors.ts";
import { protocolOf } from "./index.ts";
import { parseCountTokensRequest } from "./messages/index.ts";
import { hostileBodies, type HostileBody } from "./request_safety_cases.ts";

/** What validating `body` ends in: "ok", or the 400's param (or "body" when it names none). */
function outcome({ protocol, text }: HostileBody): string {
  const body = JSON.parse(text);
  try {
    if (protocol === "count_tokens") parseCountTokensRequest(body);
    else protocolOf(protocol).parseRequest(body, {});
    return "ok";
  } catch (error) {
    // Anything but a 400 (a RangeError from recursion, say) fails the test here.
    assert.ok(error instanceof GatewayError, `${error}`);
    assert.equal(error.status, 400);
    assert.equal(error.code, "invalid_request");
    return error.param ?? "body";
  }
}

/** The outcome of each body of request_safety_cases.ts, by name. */
const EXPECTED: Record<string, string> = {
  "chat: content nested 100,000 arrays deep": "ok",
  "chat: a tool's parameters nested 100,000 objects deep": "ok",
  "messages: model nested 100,000 arrays deep": "model",
  "responses: input nested 100,000 arrays deep": "ok",
  "chat: stream_options nested 100,000 objects deep": "ok",
  "count_tokens: system nested 100,000 arrays deep": "ok",
  "chat: a body of 200,000 keys": "ok",
  "messages: a message of 200,000 keys": "ok",
  "chat: stream_options of 200,000 keys": "ok",
  "chat: messages of 8 MB of numbers": "messages[0]",
  "responses: input of 8 MB of numbers": "ok",
  "messages: content of 8 MB of numbers": "ok",
  "chat: a body that is 8 MB of numbers": "body",
  "chat: 100,000 messages": "ok",
  "messages: 100,000 messages, the last without a role": "messages[99999].role",
  "chat: 8 MB of the smallest messages (~640,000)": "ok",
};

Deno.test("bodies built to cost a validator all of max_body_bytes are answered 400 or pass", () => {
  const bodies = hostileBodies();
  assert.deepEqual(bodies.map((body) => body.name), Object.keys(EXPECTED));
  for (const body of bodies) {
    assert.ok(body.text.length <= 8 * 1024 * 1024, `${body.name} fits max_body_bytes`);
    assert.equal(outcome(body), EXPECTED[body.name], body.name);
  }
});
