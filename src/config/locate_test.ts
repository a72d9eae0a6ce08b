import assert from "node:assert/strict";
import { locateKeys } from "./locate.ts";

const TEXT = `# a config
[server]
listen = "x"          # line 3
"odd key" = 1

[models."gpt-4.1"]
input_price = "free"

[[channels]]
name = "a"
keys = [
  "k1",
  "k2",
]
headers = { "X Team" = "blue" }

[[channels]]
name = "b"
notes = """
name = "not a key"
"""
timeouts.idle = 0

[channels.model_map]
m = "n"
`;

Deno.test("locateKeys finds the line of each key, by table, array of tables and dotted key", () => {
  const locate = locateKeys(TEXT);
  assert.equal(locate(["server"]), 2);
  assert.equal(locate(["server", "listen"]), 3);
  assert.equal(locate(["server", "odd key"]), 4);
  assert.equal(locate(["models", "gpt-4.1"]), 6);
  assert.equal(locate(["models", "gpt-4.1", "input_price"]), 7);
  assert.equal(locate(["channels", 0]), 9);
  assert.equal(locate(["channels", 0, "name"]), 10);
  assert.equal(locate(["channels", 1, "name"]), 18);
  assert.equal(locate(["channels", 1, "timeouts", "idle"]), 22);
  assert.equal(locate(["channels", 1, "model_map", "m"]), 25);
});

Deno.test("locateKeys places what it cannot find on its nearest enclosing key", () => {
  const locate = locateKeys(TEXT);
  assert.equal(locate(["channels", 0, "keys", 1]), 11, "an item of a multi-line array");
  assert.equal(locate(["channels", 0, "headers", "X Team"]), 15, "a key of an inline table");
  assert.equal(locate(["channels", 1, "base_url"]), 17, "a missing key: its table");
  assert.equal(locate(["channels", 2]), undefined);
  assert.equal(locate(["database", "url"]), undefined);
  assert.equal(locate([]), undefined);
});
