import assert from "node:assert/strict";
import { searchOf } from "./request.ts";

Deno.test("searchOf reads a request URL's query string as URL does", () => {
  for (
    const url of [
      "http://127.0.0.1:8080/v1/messages?beta=true",
      "http://127.0.0.1:8080/v1/messages?beta=true&x=%20y",
      "http://127.0.0.1:8080/v1/messages",
      "http://127.0.0.1:8080/v1/messages?",
      "http://[::1]:8080/v1/chat/completions?a=1?b=2",
    ]
  ) {
    assert.equal(searchOf(url), new URL(url).search, url);
  }
});
