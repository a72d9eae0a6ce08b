import assert from "node:assert/strict";
import { encodeSse, encodeSseBytes } from "./sse.ts";

Deno.test("encodeSse writes event, id and data lines ended by a blank line", () => {
  assert.equal(
    encodeSse({ event: "message_stop", id: "7", data: '{"type":"message_stop"}' }),
    'event: message_stop\nid: 7\ndata: {"type":"message_stop"}\n\n',
  );
});

Deno.test("encodeSse writes only data when there is no event name", () => {
  assert.equal(encodeSse({ data: "[DONE]" }), "data: [DONE]\n\n");
});

Deno.test("encodeSse splits multi-line data over several data lines", () => {
  assert.equal(encodeSse({ data: "a\nb\r\nc\rd" }), "data: a\ndata: b\ndata: c\ndata: d\n\n");
  assert.equal(encodeSse({ data: "a\rb" }), "data: a\ndata: b\n\n");
  assert.equal(encodeSse({ data: "" }), "data: \n\n");
});

Deno.test("encodeSse keeps event names on one line", () => {
  assert.equal(encodeSse({ event: "a\nb", data: "x" }), "event: a b\ndata: x\n\n");
  assert.equal(encodeSse({ id: "1\r\n2", data: "x" }), "id: 1 2\ndata: x\n\n");
});

Deno.test("encodeSseBytes is the UTF-8 of encodeSse", () => {
  const event = { event: "e", data: "héllo ✓" };
  assert.equal(new TextDecoder().decode(encodeSseBytes(event)), encodeSse(event));
});
