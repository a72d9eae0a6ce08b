import assert from "node:assert/strict";
import { readyOf, scavengeOf } from "./allocation.ts";

Deno.test("bench: a scavenge's figures are read from V8's --trace-gc-nvp line", () => {
  const line = '[32007:0x55abafd0c000:0]       67 ms: GC: {"pause":1.271,"gc":"s",' +
    '"reason":"allocation failure","allocated":4572112,"promoted":1024,"new_space_survived":690560}';
  assert.deepEqual(scavengeOf(line), { allocated: 4572112, survived: 690560, promoted: 1024 });
  // A mark-compact, a line cut short by another write, and the request log are not scavenges.
  assert.equal(scavengeOf(line.replace('"gc":"s"', '"gc":"mc"')), undefined);
  assert.equal(scavengeOf(line.slice(0, 80)), undefined);
  assert.equal(
    scavengeOf("2026-11-26T22:44:08.689Z req_01 POST /v1/chat/completions 200"),
    undefined,
  );
});

Deno.test("bench: the server's ready line is found where V8's trace shares its line", () => {
  assert.deepEqual(readyOf('[1:0x1:0] 5 ms: {"url":"http://127.0.0.1:1","pricedKey":"sk-x"}'), {
    url: "http://127.0.0.1:1",
    pricedKey: "sk-x",
  });
  assert.equal(readyOf("[1:0x1:0] 5 ms: GC: {}"), undefined);
});
