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

Deno.test("watch: an edited file is reloaded at the next poll, and only a change is", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "config.toml");
    await Deno.writeTextFile(path, configText("127.0.0.1:1"));
    const store = createConfigStore(parseConfigText(await Deno.readTextFile(path), { env: noEnv }));
    const reloads: ConfigSnapshot[] = [];
    let reloaded = Promise.withResolvers<void>();
    let poll = () => {};
    let stopped = false;
    const watcher = watchConfigFile(store, path, {
      env: noEnv,
      sighup: false,
      debounceMs: 0,
      // The test polls; no timer runs.
      startPolling: (next) => {
        poll = next;
        return () => void (stopped = true);
      },
      onReload: (snapshot) => {
        reloads.push(snapshot);
        reloaded.resolve();
      },
    });
    try {
      poll(); // unchanged: nothing to reload
      // Written as editors do: a new file renamed over the old one.
      await Deno.writeTextFile(join(dir, "config.toml.tmp"), configText("127.0.0.1:9"));
      await Deno.rename(join(dir, "config.toml.tmp"), path);
      assert.equal(reloads.length, 0, "nothing happens before the poll");
      poll();
      await reloaded.promise;
      assert.equal(reloads.length, 1);
      assert.equal(reloads[0]?.version, 2);
      assert.equal(reloads[0]?.config.server.listen, "127.0.0.1:9");
      assert.equal(store.current(), reloads[0]);

      reloaded = Promise.withResolvers<void>();
      await Deno.writeTextFile(path, configText("127.0.0.1:10"));
      poll();
      await reloaded.promise;
      assert.equal(store.current().config.server.listen, "127.0.0.1:10");
      assert.equal(store.current().version, 3);
    } finally {
      watcher.close();
    }
    assert.ok(stopped, "closing stops the polling");
  });
});

Deno.test("watch: SIGHUP reloads a changed file, until the watch is closed", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "config.toml");
    await Deno.writeTextFile(path, configText("127.0.0.1:1"));
    const store = createConfigStore(parseConfigText(await Deno.readTextFile(path), { env: noEnv }));
    const listeners = new Set<() => void>();
    const reloaded = Promise.withResolvers<ConfigSnapshot>();
    const watcher = watchConfigFile(store, path, {
      env: noEnv,
      startPolling: () => () => {},
      listenSighup: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      onReload: reloaded.resolve,
    });
    try {
      assert.equal(listeners.size, 1);
      await Deno.writeTextFile(path, configText("127.0.0.1:9"));
      for (const hangUp of listeners) hangUp();
      assert.equal((await reloaded.promise).config.server.listen, "127.0.0.1:9");
      assert.equal(store.current().version, 2);
    } finally {
      watcher.close();
      watcher.close(); // closing twice is harmless
    }
    assert.equal(listeners.size, 0, "closing stops listening for SIGHUP");
  });
});

Deno.test("watch: without sighup, no signal is listened for", () => {
  const store = createConfigStore(parseConfigText(configText("127.0.0.1:1"), { env: noEnv }));
  let listened = 0;
  const watcher = watchConfigFile(store, "missing.toml", {
    env: noEnv,
    sighup: false,
    startPolling: () => () => {},
    listenSighup: () => {
      listened++;
      return () => {};
    },
  });
  watcher.close();
  assert.equal(listened, 0);
});
