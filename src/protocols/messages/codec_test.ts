import assert from "node:assert/strict";
import type { SseEvent } from "../../translate/sse.ts";
import { upstreamStreamError } from "../../translate/errors.ts";
import { messagesCodec } from "./codec.ts";
import {
  answerContext,
  CASES,
  decodeAll,
  fixtureJson,
  fixtureStream,
  foldEvents,
  requestContext,
} from "./test_support.ts";
import { protocolOf } from "../index.ts";

// Messages to messages through the IR, as the golden suite runs every pair: each recorded
// case goes through the codec object end to end, and the client's stream read back is
// the answer the upstream streamed.
for (const name of CASES) {
  Deno.test(`messages codec: ${name} from client request to client stream through the IR`, () => {
    const request = messagesCodec.decodeRequest(fixtureJson(name, "request.json"));
    const body = messagesCodec.encodeRequest(request, requestContext());
    assert.equal(body.stream, true);
    const decoder = messagesCodec.createStreamDecoder();
    const encoder = messagesCodec.createStreamEncoder(answerContext({ request }));
    const out: SseEvent[] = [];
    let failed = false;
    for (const event of fixtureStream(name)) {
      for (const ir of decoder.decode(event)) {
        if (ir.type === "error") {
          out.push(...encoder.error(upstreamStreamError(ir.error, protocolOf("messages"))));
          failed = true;
          break;
        }
        out.push(...encoder.encode(ir));
      }
    }
    if (!failed) {
      for (const ir of decoder.end()) out.push(...encoder.encode(ir));
      out.push(...encoder.end());
    }
    const upstream = foldEvents(decodeAll(fixtureStream(name)));
    const client = foldEvents(decodeAll(out));
    assert.deepEqual(client.parts, upstream.parts);
    assert.equal(client.finish, upstream.finish);
    if (name.startsWith("error")) {
      // The upstream's overloaded_error stays a 529 `overloaded_error` for a messages client.
      assert.equal(client.error?.status, 529);
      assert.equal(JSON.parse(out.at(-1)!.data).request_id, "req_test");
    } else assert.deepEqual(client.usage, upstream.usage);
  });
}
