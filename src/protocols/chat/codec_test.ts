import assert from "node:assert/strict";
import { upstreamStreamError } from "../../translate/errors.ts";
import { chatCodec } from "./codec.ts";
import {
  answerContext,
  CASES,
  fixtureJson,
  fixtureStream,
  requestContext,
} from "./test_support.ts";
import { protocolOf } from "../index.ts";

// Chat to chat through the IR, as the golden suite runs every pair: each recorded case
// goes through the codec object end to end without loss of what the client sees.
for (const name of CASES) {
  Deno.test(`chat codec: ${name} from client request to client stream through the IR`, () => {
    const request = chatCodec.decodeRequest(fixtureJson(name, "request.json"));
    const body = chatCodec.encodeRequest(request, requestContext());
    assert.equal(body.stream, true);
    const decoder = chatCodec.createStreamDecoder();
    const encoder = chatCodec.createStreamEncoder(answerContext({ request }));
    const out = [];
    for (const event of fixtureStream(name)) {
      for (const ir of decoder.decode(event)) {
        if (ir.type === "error") {
          out.push(...encoder.error(upstreamStreamError(ir.error, protocolOf("chat"))));
          break;
        }
        out.push(...encoder.encode(ir));
      }
    }
    if (!name.startsWith("error")) {
      for (const ir of decoder.end()) out.push(...encoder.encode(ir));
      out.push(...encoder.end());
      assert.equal(out.at(-1)?.data, "[DONE]");
    } else {
      const error = JSON.parse(out.at(-1)!.data).error;
      // A 500 and a 502 from the upstream are both the gateway's 502 `upstream_error`.
      assert.equal(error.code, "upstream_error");
      assert.equal(error.request_id, "req_test");
    }
  });
}
