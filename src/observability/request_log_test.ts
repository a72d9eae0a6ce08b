import assert from "node:assert/strict";
import { IsoTime } from "./iso_time.ts";
import { createLineWriter } from "./line_writer.ts";
import { newRecord, type RequestRecord } from "./record.ts";
import { escapeLogField, logRequest } from "./request_log.ts";

const DECODER = new TextDecoder();

/** The bytes each format writes for `record`, as text. */
async function written(record: RequestRecord): Promise<{ text: string; json: string }> {
  const out = { text: "", json: "" };
  for (const format of ["text", "json"] as const) {
    const writer = createLineWriter((bytes) => {
      out[format] += DECODER.decode(bytes);
      return Promise.resolve();
    });
    logRequest(writer, format, record, 12.34, new IsoTime());
    await writer.flush();
  }
  return out;
}

/** A record of a request whose path and model are the client's own text. */
function clientRecord(path: string, model: string): RequestRecord {
  const record = newRecord({ requestId: "req_1", time: 0, method: "POST", path });
  Object.assign(record, { status: 200, outcome: "ok", model, account: "acme", keyId: "k1" });
  return record;
}

/** Terminal escapes, line breaks and their look-alikes a client may put in its text. */
const HOSTILE = [
  "/v1/lo\u001b[2Kg",
  "echo\nFORGED 200 ok key=admin",
  "echo\r\u001b[1A\u001b[2KFORGED",
  "a\u009b31mred", // the one-byte CSI
  "a\u2028b\u2029c",
  "abc\u202eevil", // right-to-left override: shows the rest reversed
  "tab\there",
  "bell\u0007",
  "lone \ud800 surrogate",
];

Deno.test("request log: a client's path or model writes one text line, no control or escape raw", async () => {
  for (const hostile of HOSTILE) {
    const { text, json } = await written(clientRecord(hostile, hostile));
    assert.equal(text.indexOf("\n"), text.length - 1, `one line: ${JSON.stringify(text)}`);
    assert.doesNotMatch(
      text.slice(0, -1),
      // deno-lint-ignore no-control-regex -- control characters are what it looks for
      /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202e]|[\ud800-\udfff]/,
      JSON.stringify(text),
    );
    // The fields stay in their places: no blank the client wrote parts them.
    const fields = text.slice(0, -1).split(" ");
    assert.equal(fields[3], escapeLogField(hostile));
    assert.equal(fields.filter((field) => field.startsWith("model=")).length, 1);
    assert.equal(fields.filter((field) => field.startsWith("key=")).length, 1, "no forged key");
    // The JSON line was safe already, and still is: one line, the text as it came.
    assert.equal(json.indexOf("\n"), json.length - 1);
    assert.equal(JSON.parse(json).model, hostile);
  }
});

Deno.test("request log: escapes are readable and reversible; plain text is written as it is", () => {
  assert.equal(escapeLogField("/v1/chat/completions"), "/v1/chat/completions");
  assert.equal(
    escapeLogField("gpt-4o-mini caf\u00e9 \u4e2d"),
    "gpt-4o-mini\\x20caf\u00e9\\x20\u4e2d",
  );
  assert.equal(escapeLogField("/v1/lo\u001b[2Kg"), "/v1/lo\\x1b[2Kg");
  assert.equal(escapeLogField("a\nb"), "a\\x0ab");
  assert.equal(escapeLogField("a\\x0ab"), "a\\\\x0ab", "a backslash is escaped: no forged escape");
  assert.equal(escapeLogField("a\u202eb"), "a\\u{202e}b");
});
