import assert from "node:assert/strict";
import { settingsFrom } from "./settings.ts";

Deno.test("bench: whole answers are loaded by wrk unless --load says fetch; others are refused", () => {
  assert.equal(settingsFrom([]).load, "wrk");
  assert.equal(settingsFrom(["--load", "fetch"]).load, "fetch");
  assert.throws(
    () => settingsFrom(["--load", "ab"]),
    /Invalid BENCH_LOAD \(or --load\): "ab" is not one of wrk, fetch\./,
  );
});
