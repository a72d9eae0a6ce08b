import assert from "node:assert/strict";
import { keyedStrings } from "./json_read.ts";
import { protocolOf } from "./index.ts";

Deno.test("keyed strings are read at any depth, in order, with their escapes resolved", () => {
  const read = keyedStrings(["content", "arguments"]);
  const json = JSON.stringify({
    choices: [
      { delta: { content: 'say "hi"\n\u00e9\u2028' } },
      { delta: { tool_calls: [{ function: { name: "f", arguments: '{"a":1}' } }] } },
    ],
  });
  assert.equal(read(json), 'say "hi"\n\u00e9\u2028{"a":1}');
  // Escapes as an upstream may write them (\uXXXX, \/), not only as JSON.stringify does.
  assert.equal(read('{"content":"caf\\u00e9 a\\/b"}'), "café a/b");
});

Deno.test("keyed strings skip other keys, non-string values and keys quoted inside strings", () => {
  const read = keyedStrings(["content"]);
  assert.equal(read(JSON.stringify({ contents: "no", content: null, x: { content: [1] } })), "");
  // A string that spells a key: its quotes are escaped, so it is no key.
  assert.equal(read(JSON.stringify({ other: '"content":"fake"', content: "real" })), "real");
  assert.equal(read("[DONE]"), "");
  // Malformed escapes come back as written rather than throwing.
  assert.equal(read('{"content":"bad \\x escape"}'), "bad \\x escape");
});

Deno.test("each protocol reads a stream event's produced text as parsing it would", () => {
  const chat = protocolOf("chat");
  const chunk = (delta: Record<string, unknown>) => ({
    data: JSON.stringify({
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, logprobs: { content: [{ token: "x" }] } }],
      usage: null,
    }),
  });
  assert.equal(chat.eventText(chunk({ role: "assistant", content: "Hel" })), "Hel");
  assert.equal(chat.eventText(chunk({ reasoning_content: "think " })), "think ");
  assert.equal(
    chat.eventText(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] })),
    '{"q":',
  );

  const messages = protocolOf("messages");
  const delta = (value: Record<string, unknown>) => ({
    event: "content_block_delta",
    data: JSON.stringify({ type: "content_block_delta", index: 0, delta: value }),
  });
  assert.equal(messages.eventText(delta({ type: "text_delta", text: "Hi \u00e9" })), "Hi \u00e9");
  assert.equal(
    messages.eventText(delta({ type: "input_json_delta", partial_json: '{"a"' })),
    '{"a"',
  );
  assert.equal(
    messages.eventText({
      event: "message_start",
      data: JSON.stringify({ message: { content: [] } }),
    }),
    "",
  );

  const responses = protocolOf("responses");
  assert.equal(
    responses.eventText({
      event: "response.output_text.delta",
      data: JSON.stringify({ type: "response.output_text.delta", delta: 'tok"en' }),
    }),
    'tok"en',
  );
  assert.equal(
    responses.eventText({ event: "response.output_text.done", data: '{"text":"whole"}' }),
    "",
  );
});
