import assert from "node:assert/strict";
import { upstreamStreamError } from "../../translate/errors.ts";
import { responsesCodec } from "./codec.ts";
import {
  answerContext,
  CASES,
  checkGrammar,
  fixtureJson,
  fixtureStream,
  requestContext,
} from "./test_support.ts";
import { protocolOf } from "../index.ts";

// Responses to responses through the IR, as the golden suite runs every pair: each recorded
// case goes through the codec object end to end, the client stream in the strict grammar.
for (const name of CASES) {
  Deno.test(`responses codec: ${name} from client request to client stream through the IR`, () => {
    const request = responsesCodec.decodeRequest(fixtureJson(name, "request.json"));
    const body = responsesCodec.encodeRequest(request, requestContext());
    assert.equal(body.stream, true);
    const decoder = responsesCodec.createStreamDecoder();
    const encoder = responsesCodec.createStreamEncoder(answerContext({ request }));
    const out = [];
    let failed = false;
    for (const event of fixtureStream(name)) {
      for (const ir of decoder.decode(event)) {
        if (ir.type === "error") {
          out.push(...encoder.error(upstreamStreamError(ir.error, protocolOf("responses"))));
          failed = true;
          break;
        }
        out.push(...encoder.encode(ir));
      }
    }
    assert.equal(failed, name.startsWith("error"));
    if (!failed) {
      for (const ir of decoder.end()) out.push(...encoder.encode(ir));
      out.push(...encoder.end());
      checkGrammar(out);
    } else {
      const error = JSON.parse(out.at(-1)!.data);
      assert.equal(error.type, "error");
      assert.equal(error.sequence_number, out.length - 1);
      assert.equal(
        error.code,
        name === "error_before_output" ? "rate_limit_exceeded" : "upstream_error",
      );
      assert.equal(error.request_id, "req_test");
    }
  });
}
