import assert from "node:assert/strict";
import { eventText, promptText, responseText } from "./text.ts";
import { fixtureJson, fixtureStream, geminiCliRequest } from "./test_support.ts";

Deno.test("gemini promptText: Gemini CLI's system instruction, then its two text parts", () => {
  const body = geminiCliRequest();
  const prompt = promptText(body);
  assert.equal(prompt.texts.length, 3);
  assert.ok(prompt.texts[0]!.length > 30_000, "the ~30 KB system instruction");
  assert.match(
    prompt.lastUserText,
    /^<session_context>[^]*<\/session_context>\nWhat does main\.ts do\?/,
  );
});

Deno.test("gemini promptText: function responses are prompt text, not the user's last words", () => {
  const prompt = promptText({
    system_instruction: { parts: [{ text: "sys" }] },
    contents: [
      { parts: [{ text: "read it" }] },
      { role: "model", parts: [{ functionCall: { name: "read_file", args: { p: "a" } } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "read_file", response: { output: "x" } } }],
      },
      "junk",
    ],
  });
  assert.deepEqual(prompt, {
    texts: ["sys", "read it", '{"output":"x"}'],
    lastUserText: "read it",
  });
  assert.deepEqual(promptText({}), { texts: [], lastUserText: "" });
});

Deno.test("gemini responseText: text, thoughts and call arguments", () => {
  assert.equal(
    responseText(fixtureJson("response_tool_call.json")),
    "**Reading the entry point**\n\nThe user wants to know what `main.ts` does. " +
      "I should read the file before I answer.I'll read `main.ts` first, then answer." +
      '{"file_path":"/home/user/project/main.ts"}',
  );
  assert.equal(responseText({ candidates: "none" }), "");
});

Deno.test("gemini eventText: a stream's events make what its whole response makes", () => {
  const streamed = fixtureStream("stream_tool_call.sse").map(eventText).join("");
  assert.equal(streamed, responseText(fixtureJson("response_tool_call.json")));
  assert.equal(
    eventText({ data: '{"candidates": [{"content": {"parts": [{"text": "a\\"b"}]}}]}' }),
    'a"b',
  );
});
