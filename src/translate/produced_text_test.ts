import assert from "node:assert/strict";
import { protocolOf } from "../protocols/index.ts";
import { KEPT_EVENT_CHARS, outputTextCollector } from "./produced_text.ts";

const chatChunk = (content: string) => ({
  data: JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
    usage: null,
  }),
});

Deno.test("output text of a stream longer than what a collector keeps unparsed is whole and in order", () => {
  const collector = outputTextCollector(protocolOf("chat"));
  const words: string[] = [];
  // Several times the kept size, so earlier events were turned into text along the way.
  for (let i = 0; words.join("").length < 4 * KEPT_EVENT_CHARS; i++) {
    const word = `w${i} `;
    words.push(word);
    collector.observe(chatChunk(word));
  }
  collector.observe({ data: "[DONE]" });
  assert.equal(collector.text(), words.join(""));
  // Reading the text twice gives the same text.
  assert.equal(collector.text(), words.join(""));
});

Deno.test("output text of messages events keeps only content deltas", () => {
  const collector = outputTextCollector(protocolOf("messages"));
  collector.observe({ event: "message_start", data: JSON.stringify({ type: "message_start" }) });
  for (const text of ["Hel", "lo"]) {
    collector.observe({
      event: "content_block_delta",
      data: JSON.stringify({
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text },
      }),
    });
  }
  assert.equal(collector.text(), "Hello");
});

Deno.test("a long stream's collector keeps at most a few kilobytes of events unparsed", () => {
  const chat = protocolOf("chat");
  let parsedChars = 0;
  const counting = {
    ...chat,
    eventText: (event: { data: string }) => {
      parsedChars += event.data.length;
      return chat.eventText(event);
    },
  };
  const collector = outputTextCollector(counting);
  let observedChars = 0;
  for (let i = 0; i < 2_000; i++) {
    const event = chatChunk(`token${i} `);
    collector.observe(event);
    observedChars += event.data.length;
    assert.ok(observedChars - parsedChars <= KEPT_EVENT_CHARS + event.data.length);
  }
});
