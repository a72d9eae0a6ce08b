import assert from "node:assert/strict";
import { diagnosePath } from "./not_found.ts";

Deno.test("not found: diagnoses the base-URL mistakes of client set-up", () => {
  const cases: [string, string, RegExp][] = [
    ["/v1/v1/messages", "POST", /repeats "\/v1"/],
    ["//v1/chat/completions", "POST", /trailing slash/],
    ["/chat/completions", "POST", /missing "\/v1"/],
    ["/responses", "POST", /missing "\/v1"/],
    ["/v1/responses/responses", "POST", /repeats "\/responses"/],
    ["/v1/chat/completions/chat/completions", "POST", /repeats "\/chat\/completions"/],
    ["/v1/chat/completions", "GET", /takes POST, not GET/],
    ["/v2/whatever", "GET", /tollgate serves GET \/v1\/models/],
  ];
  for (const [path, method, expected] of cases) {
    assert.match(diagnosePath(path, method), expected, path);
  }
});
