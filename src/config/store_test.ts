import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError, type EnvLookup, parseConfigText } from "./load.ts";
import { type ConfigSnapshot, createConfigStore, watchConfigFile } from "./store.ts";

const noEnv: EnvLookup = () => undefined;
const configText = (listen: string) =>
  `[server]\nlisten = "${listen}"\n[groups.default]\n[[channels]]\nname = "echo"\nprotocol = "echo"\nmodels = ["echo"]\n`;

async function withTempDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("store: replace bumps the version and notifies subscribers", () => {
  let clock = 1000;
  const store = createConfigStore(parseConfigText(configText("a:1"), { env: noEnv }), {
    now: () => clock,
  });
  assert.equal(store.current().version, 1);
  assert.equal(store.current().loadedAt, 1000);

  const seen: ConfigSnapshot[] = [];
  const unsubscribe = store.subscribe((snapshot) => seen.push(snapshot));
  clock = 2000;
  const next = store.replace(parseConfigText(configText("b:2"), { env: noEnv }));
  assert.equal(next.version, 2);
  assert.equal(next.loadedAt, 2000);
  assert.equal(store.current(), next);
  assert.deepEqual(seen, [next]);

  unsubscribe();
  store.replace(parseConfigText(configText("c:3"), { env: noEnv }));
  assert.equal(seen.length, 1);
  assert.equal(store.current().version, 3);
});

Deno.test("store: a throwing listener does not stop the others", () => {
  const store = createConfigStore(parseConfigText(configText("a:1"), { env: noEnv }));
  let heard = 0;
  store.subscribe(() => {
    throw new Error("boom");
  });
  store.subscribe(() => heard++);
  assert.throws(
    () => store.replace(parseConfigText(configText("b:2"), { env: noEnv })),
    AggregateError,
  );
  assert.equal(heard, 1);
  assert.equal(store.current().version, 2);
});

Deno.test("watch: valid, invalid, valid again through reload()", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "config.toml");
    await Deno.writeTextFile(path, configText("127.0.0.1:1"));
    const store = createConfigStore(parseConfigText(await Deno.readTextFile(path), { env: noEnv }));
    const reloads: number[] = [];
    const errors: unknown[] = [];
    const watcher = watchConfigFile(store, path, {
      env: noEnv,
      sighup: false,
      debounceMs: 60_000, // file events must not race the explicit reloads below
      onReload: (snapshot) => reloads.push(snapshot.version),
      onError: (error) => errors.push(error),
    });
    try {
      await watcher.reload(); // unchanged text: nothing happens
      assert.equal(store.current().version, 1);

      await Deno.writeTextFile(path, "[server]\nlisten = 80\n");
      await watcher.reload();
      assert.equal(store.current().version, 1, "an invalid file keeps the old config");
      assert.equal(store.current().config.server.listen, "127.0.0.1:1");
      assert.equal(errors.length, 1);
      assert.ok(errors[0] instanceof ConfigError);
      assert.match((errors[0] as ConfigError).problems[0] ?? "", /^server\.listen: /);

      await Deno.writeTextFile(path, configText("127.0.0.1:2"));
      await watcher.reload();
      assert.equal(store.current().version, 2);
      assert.equal(store.current().config.server.listen, "127.0.0.1:2");
      assert.deepEqual(reloads, [2]);

      await watcher.reload();
      assert.equal(store.current().version, 2, "same text again: no new version");
      assert.equal(errors.length, 1);
    } finally {
      watcher.close();
    }
  });
});

Deno.test("watch: an edited file is reloaded", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "config.toml");
    await Deno.writeTextFile(path, configText("127.0.0.1:1"));
    const store = createConfigStore(parseConfigText(await Deno.readTextFile(path), { env: noEnv }));
    const { promise: reloaded, resolve } = Promise.withResolvers<ConfigSnapshot>();
    const watcher = watchConfigFile(store, path, {
      env: noEnv,
      sighup: false,
      debounceMs: 20,
      onReload: resolve,
    });
    try {
      // Written as editors do: a new file renamed over the old one.
      await Deno.writeTextFile(join(dir, "config.toml.tmp"), configText("127.0.0.1:9"));
      await Deno.rename(join(dir, "config.toml.tmp"), path);
      const snapshot = await reloaded;
      assert.equal(snapshot.version, 2);
      assert.equal(snapshot.config.server.listen, "127.0.0.1:9");
      assert.equal(store.current(), snapshot);
    } finally {
      watcher.close();
    }
  });
});

Deno.test("watch: SIGHUP listener is added and removed", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "config.toml");
    await Deno.writeTextFile(path, configText("127.0.0.1:1"));
    const store = createConfigStore(parseConfigText(await Deno.readTextFile(path), { env: noEnv }));
    const watcher = watchConfigFile(store, path, { env: noEnv });
    watcher.close();
    watcher.close(); // closing twice is harmless
  });
});
