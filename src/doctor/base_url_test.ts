import assert from "node:assert/strict";
import { checkBaseUrl } from "./base_url.ts";

const CASES: [
  given: string,
  probeRoot: string | null,
  suggestedRoot: string | null,
  codes: string[],
][] = [
  ["http://127.0.0.1:8080", "http://127.0.0.1:8080", "http://127.0.0.1:8080", []],
  ["http://127.0.0.1:8080/v1", "http://127.0.0.1:8080", "http://127.0.0.1:8080", []],
  ["https://gw.example/api/v1", "https://gw.example/api", "https://gw.example/api", []],
  ["http://h:1/", "http://h:1/", "http://h:1", ["trailing_slash"]],
  ["http://h:1/v1/", "http://h:1/v1/", "http://h:1", ["trailing_slash"]],
  ["http://h:1/v1/v1", "http://h:1/v1", "http://h:1", ["doubled_v1"]],
  ["http://h:1/v1/chat/completions", "http://h:1/v1/chat/completions", "http://h:1", [
    "endpoint_in_base_url",
  ]],
  ["http://h:1/v1/responses/v1", "http://h:1/v1/responses", "http://h:1", ["endpoint_in_base_url"]],
  ["http://h:1//v1", "http://h:1/", "http://h:1", ["double_slash"]],
  ["localhost:8080/v1", "http://localhost:8080", "http://localhost:8080", ["missing_scheme"]],
  ["gw.example/v1", "https://gw.example", "https://gw.example", ["missing_scheme"]],
  [" http://h:1 ", "http://h:1", "http://h:1", ["base_url_whitespace"]],
  ["http://h:1/v1?x=1", "http://h:1", "http://h:1", ["base_url_query"]],
  ["ftp://h/v1", null, null, ["unsupported_scheme"]],
  ["http://", null, null, ["base_url_invalid"]],
  ["", null, null, ["base_url_empty"]],
];

Deno.test("checkBaseUrl: findings, the root probed as given and the corrected root", () => {
  for (const [given, probeRoot, suggestedRoot, codes] of CASES) {
    const check = checkBaseUrl(given);
    assert.deepEqual(
      {
        probeRoot: check.probeRoot,
        suggestedRoot: check.suggestedRoot,
        codes: check.findings.map((finding) => finding.code),
      },
      { probeRoot, suggestedRoot, codes },
      given,
    );
  }
});

Deno.test("checkBaseUrl: a doubled /v1 names what to keep", () => {
  const [finding] = checkBaseUrl("http://h:1/v1/v1").findings;
  assert.match(finding!.message, /repeats "\/v1"/);
  assert.match(finding!.message, /Keep one "\/v1" for OpenAI-style clients/);
});
