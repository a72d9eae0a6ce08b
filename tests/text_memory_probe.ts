/**
 * Run as its own process by text_memory_test.ts, with V8's `gc` exposed: 200 streams'
 * output-text collectors observe large chat chunks (each ~20 KB of data, 40 characters
 * of content) until their text is read; prints the heap each collector still holds
 * after a full collection, as JSON.
 */
import { protocolOf } from "../src/protocols/index.ts";
import { outputTextCollector } from "../src/translate/produced_text.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("Run with --v8-flags=--expose-gc.");

const STREAMS = 200;
const chunk = (stream: number, index: number) => ({
  data: JSON.stringify({
    id: `chatcmpl-${stream}-${"x".repeat(20_000)}`,
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta: { content: `stream ${stream} says token ${index} aloud` } }],
  }),
});

gc();
const before = Deno.memoryUsage().heapUsed;
const collectors = [];
for (let stream = 0; stream < STREAMS; stream++) {
  const collector = outputTextCollector(protocolOf("chat"));
  for (let index = 0; index < 3; index++) collector.observe(chunk(stream, index));
  collector.text();
  collectors.push(collector);
}
gc();
const held = Deno.memoryUsage().heapUsed - before;
console.log(JSON.stringify({ bytesPerCollector: held / STREAMS, collectors: collectors.length }));
