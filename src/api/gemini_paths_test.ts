import assert from "node:assert/strict";
import { parseConfig } from "../config/schema.ts";
import { googleAuthenticated, speaksGemini } from "./gemini_paths.ts";

const ALL = parseConfig({});
const NO_GEMINI = parseConfig({ server: { entry_points: ["chat"] } });

Deno.test("gemini paths: which paths answer in Google's shape", () => {
  const cases: [string, boolean, boolean][] = [
    ["/v1beta/models/m:generateContent", false, true],
    ["/v1beta/anything", false, true],
    ["/v1/models/m:streamGenerateContent", false, true],
    ["/v1/models/m:countTokens", false, true],
    // An OpenAI-style id with a colon (Ollama's) is no Gemini method.
    ["/v1/models/qwen2.5:7b", false, false],
    ["/v1/models", false, false],
    ["/v1/models", true, true],
    ["/v1/models/m", true, true],
    ["/v1/chat/completions", true, false],
  ];
  for (const [path, google, expected] of cases) {
    assert.equal(speaksGemini(path, google, ALL), expected, `${path} ${google}`);
  }
  // Without the gemini entry point, the list keeps OpenAI's shape for everyone.
  assert.equal(speaksGemini("/v1/models", true, NO_GEMINI), false);
});

Deno.test("gemini paths: Google's ways of sending a key", () => {
  const request = (url: string, headers: Record<string, string> = {}) =>
    new Request(`http://h${url}`, { headers });
  assert.equal(googleAuthenticated(request("/v1/models", { "x-goog-api-key": "k" })), true);
  assert.equal(googleAuthenticated(request("/v1/models?key=k")), true);
  assert.equal(googleAuthenticated(request("/v1/models?pageSize=2&key=k")), true);
  assert.equal(googleAuthenticated(request("/v1/models", { authorization: "Bearer k" })), false);
  assert.equal(googleAuthenticated(request("/v1/models?keys=k")), false);
});
