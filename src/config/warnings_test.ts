import assert from "node:assert/strict";
import { parseConfig } from "./schema.ts";
import { configWarnings } from "./warnings.ts";

const channel = (name: string, protocol: string, models: string[]) => ({
  name,
  protocol,
  models,
  ...(protocol === "echo" ? {} : { base_url: "https://x.test/v1" }),
});

Deno.test("configWarnings names each model a channel serves without a price", () => {
  const config = parseConfig({
    groups: { default: {} },
    models: {
      priced: { input_price: 1, output_price: 2 },
      "half.priced": { input_price: 1 },
      free: { input_price: 0, output_price: 0 },
    },
    channels: [
      channel("a", "chat", ["priced", "half.priced", "unlisted"]),
      channel("b", "messages", ["unlisted", "free"]),
      channel("echo", "echo", ["echo"]),
    ],
  });
  assert.deepEqual(configWarnings(config), [
    'model "half.priced" (channel "a") has no output_price: its requests cost nothing; ' +
    'set output_price under [models."half.priced"]',
    'model "unlisted" (channel "a", "b") has no input_price or output_price: its requests ' +
    'cost nothing; set input_price and output_price under [models."unlisted"]',
  ]);
});
