/**
 * Config reload while serving: valid rewrites take effect, an invalid one is ignored,
 * no request fails, requests in flight finish on the config they started with, and
 * the file watcher itself notices a change.
 */
import assert from "node:assert/strict";
import { type Logger, silentLogger } from "../src/log.ts";
import { channel, configWith, startGateway, type TestGateway } from "./harness.ts";
import { askText, chatBody, fakeSays, readEvents, replaceConfig, withScope } from "./support.ts";

const CHAT = "/v1/chat/completions";

async function modelIds(gateway: TestGateway, key: string): Promise<string[]> {
  const response = await fetch(`${gateway.baseUrl}/models`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return (JSON.parse(text) as { data: { id: string }[] }).data.map((model) => model.id);
}

/** Model `m` on the fake at `url` (named `name`), plus the extra models listed. */
function routeTo(name: string, url: string, extraModels: string[] = []): string {
  return configWith(
    channel({ name, protocol: "chat", baseUrl: url, models: ["m", ...extraModels] }),
  );
}

Deno.test("reload: requests keep succeeding while the config goes valid, invalid, valid", () =>
  withScope(async (s) => {
    const [a, b, c] = [
      await s.fake({ name: "a" }),
      await s.fake({ name: "b" }),
      await s.fake({ name: "c" }),
    ];
    const gateway = await s.gateway(routeTo("a", a.url));
    const { secret } = await gateway.createKey();
    assert.deepEqual(await modelIds(gateway, secret), ["m"]);

    // Each step: the rewrite made before request `at`, and who serves `m` from then on.
    const steps = [
      { at: 15, toml: routeTo("b", b.url, ["new-b"]), serves: "b", models: ["m", "new-b"] },
      // Invalid: TOML that does not parse. The previous config (b) stays.
      { at: 30, toml: '[[channels]\nname = "broken', serves: "b", models: ["m", "new-b"] },
      // Invalid: parses, but the channel names an undefined group.
      {
        at: 38,
        toml: routeTo("c", c.url).replace('models = ["m"]', 'models = ["m"]\ngroups = ["nope"]'),
        serves: "b",
        models: ["m", "new-b"],
      },
      { at: 45, toml: routeTo("c", c.url, ["new-c"]), serves: "c", models: ["m", "new-c"] },
    ];
    let serves = "a";
    let failures = 0;
    for (let i = 0; i < 60; i++) {
      const step = steps.find((step) => step.at === i);
      if (step) {
        await replaceConfig(gateway, step.toml);
        await gateway.server.reload();
        serves = step.serves;
        assert.deepEqual(await modelIds(gateway, secret), step.models, `after rewrite at ${i}`);
      }
      const response = await gateway.post(CHAT, secret, chatBody("m", `request ${i}`));
      const text = await response.text();
      if (response.status !== 200) {
        failures++;
        continue;
      }
      assert.equal(JSON.parse(text).choices[0].message.content, fakeSays(serves, `request ${i}`));
    }
    assert.equal(failures, 0);
    assert.equal(a.requests.length, 15);
    assert.equal(b.requests.length, 30);
    assert.equal(c.requests.length, 15);
    assert.equal(await askText(gateway, secret, CHAT, chatBody("new-c")), fakeSays("c"));
  }));

Deno.test("reload: a stream in flight finishes on the config it started with", () =>
  withScope(async (s) => {
    const gate = Promise.withResolvers<void>();
    const a = await s.fake({ name: "a", behaviour: { gate: gate.promise, gateAfter: 2 } });
    const b = await s.fake({ name: "b" });
    const gateway = await s.gateway(routeTo("a", a.url));
    const { secret } = await gateway.createKey();

    // Headers arrive after the first event, so the stream is under way on `a` here.
    const inFlight = await gateway.post(CHAT, secret, chatBody("m", "hi there", { stream: true }));
    assert.equal(inFlight.status, 200);

    await replaceConfig(gateway, routeTo("b", b.url));
    await gateway.server.reload();
    assert.equal(await askText(gateway, secret, CHAT, chatBody("m")), fakeSays("b"));

    gate.resolve();
    const text = (await readEvents(inFlight))
      .filter((event) => event.data !== "[DONE]")
      .map((event) => JSON.parse(event.data).choices[0]?.delta.content ?? "")
      .join("");
    assert.equal(text, fakeSays("a"));
    assert.equal(a.requests.length, 1);
    assert.equal(b.requests.length, 1);
  }));

Deno.test("reload: the file watcher picks up a rewritten config by itself", async () => {
  // The watcher's own reload (no reload() is called here) is the event waited on: the
  // server logs it, so the test needs no polling loop and no clock.
  const reloaded = Promise.withResolvers<void>();
  const log: Logger = {
    ...silentLogger,
    info: (message) => void (message === "config reloaded" && reloaded.resolve()),
    error: (message, fields) =>
      void (message.startsWith("config reload rejected") &&
        reloaded.reject(new Error(`${message}: ${JSON.stringify(fields)}`))),
  };
  const gateway = await startGateway(
    configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] })),
    { log },
  );
  try {
    const { secret } = await gateway.createKey();
    assert.deepEqual(await modelIds(gateway, secret), ["echo"]);
    await replaceConfig(
      gateway,
      configWith(channel({ name: "echo", protocol: "echo", models: ["echo", "watched"] })),
    );
    await reloaded.promise;
    assert.deepEqual(await modelIds(gateway, secret), ["echo", "watched"]);
  } finally {
    await gateway.close();
  }
});

Deno.test("reload: an emptied config file is rejected and the previous config stays", () =>
  withScope(async (s) => {
    const a = await s.fake({ name: "a" });
    const gateway = await s.gateway(routeTo("a", a.url));
    const { secret } = await gateway.createKey();
    await Deno.writeTextFile(gateway.configPath, "");
    await gateway.server.reload();
    assert.deepEqual(await modelIds(gateway, secret), ["m"]);
    assert.equal(await askText(gateway, secret, CHAT, chatBody("m")), fakeSays("a"));
  }));

Deno.test("reload: a channel rewritten under its name sends its new key and headers from the next request", () =>
  withScope(async (s) => {
    const fake = await s.fake({ name: "a" });
    const rewritten = (key: string, team: string) =>
      configWith(channel({
        name: "a",
        protocol: "chat",
        baseUrl: fake.url,
        models: ["m"],
        keys: [key],
        extra: `headers = { "X-Team" = "${team}" }`,
      }));
    const gateway = await s.gateway(rewritten("sk-old", "blue"));
    const { secret } = await gateway.createKey();
    for (const [key, team] of [["sk-old", "blue"], ["sk-new", "green"], ["sk-old", "red"]]) {
      await replaceConfig(gateway, rewritten(key!, team!));
      await gateway.server.reload();
      // Twice each: the second request of a config reuses what the first one's made.
      for (let i = 0; i < 2; i++) {
        assert.equal(await askText(gateway, secret, CHAT, chatBody("m")), fakeSays("a"));
        const sent = fake.requests.at(-1)?.headers;
        assert.equal(sent?.authorization, `Bearer ${key}`);
        assert.equal(sent?.["x-team"], team);
      }
    }
  }));
