/**
 * The config in force, as immutable snapshots, and the watcher that replaces it when
 * the file changes. A request reads one snapshot and keeps it, so a reload never
 * changes the config under a request in flight.
 */
import { resolve } from "node:path";
import type { Config } from "./schema.ts";
import { configDir, ConfigError, type EnvLookup, parseConfigText } from "./load.ts";

/** One version of the config: what it says, its version number (1 first) and when it was loaded. */
export interface ConfigSnapshot {
  readonly config: Config;
  readonly version: number;
  /** Milliseconds since the epoch. */
  readonly loadedAt: number;
}

/** Called with each new snapshot after it is in force. */
export type ConfigListener = (snapshot: ConfigSnapshot) => void;

/** Holds the current snapshot and tells subscribers when it changes. */
export interface ConfigStore {
  /** The snapshot in force now; read once per request and keep it. */
  current(): ConfigSnapshot;
  /** Puts a validated config in force as the next version and notifies subscribers. */
  replace(config: Config): ConfigSnapshot;
  /** Calls `listener` with every later snapshot; returns a function that unsubscribes. */
  subscribe(listener: ConfigListener): () => void;
}

/** Options of `createConfigStore`. */
export interface ConfigStoreOptions {
  /** Clock for `loadedAt`; `Date.now` unless a test passes its own. */
  now?: () => number;
}

/** Creates a store whose first snapshot (version 1) holds `initial`. */
export function createConfigStore(initial: Config, options: ConfigStoreOptions = {}): ConfigStore {
  const now = options.now ?? Date.now;
  let snapshot: ConfigSnapshot = Object.freeze({ config: initial, version: 1, loadedAt: now() });
  const listeners = new Set<ConfigListener>();
  return {
    current: () => snapshot,
    replace(config) {
      snapshot = Object.freeze({ config, version: snapshot.version + 1, loadedAt: now() });
      const current = snapshot;
      // Every listener hears of the change even if an earlier one throws.
      const errors: unknown[] = [];
      for (const listener of [...listeners]) {
        try {
          listener(current);
        } catch (error) {
          errors.push(error);
        }
      }
      if (errors.length > 0) {
        throw new AggregateError(errors, `Notifying of config version ${current.version} failed`);
      }
      return current;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Options of `watchConfigFile`. */
export interface WatchConfigOptions {
  /** Called after a changed, valid file was put in force. */
  onReload?(snapshot: ConfigSnapshot): void;
  /** Called when a reload failed; the old config stays in force. */
  onError?(error: unknown): void;
  /** Environment for `${VAR}`; `Deno.env.get` by default. */
  env?: EnvLookup;
  /** Quiet time after the last change seen before reloading; editors write in bursts. */
  debounceMs?: number;
  /** How often the file's modification time, size and inode are checked for a change. */
  pollMs?: number;
  /**
   * Starts the polling: calls `poll` from now on and returns what stops it. By default
   * every `pollMs` on a timer; a test passes its own to poll exactly when it chooses.
   */
  startPolling?: (poll: () => void) => () => void;
  /** Whether SIGHUP triggers a reload (default true; ignored where signals do not exist). */
  sighup?: boolean;
  /**
   * Listens for SIGHUP: calls `listener` on each from now on and returns what stops it. By
   * default the process's signal; a test passes its own to hang up when it chooses.
   */
  listenSighup?: (listener: () => void) => () => void;
}

/** A running watch of the config file. */
export interface ConfigWatcher {
  /** Reloads now (as a file change or SIGHUP would), resolving when done; reloads run one at a time. */
  reload(): Promise<void>;
  /** Stops watching and listening for SIGHUP. */
  close(): void;
}

/**
 * Watches `path` (by polling its metadata) and SIGHUP, putting each changed valid file in
 * force and reporting invalid ones.
 */
export function watchConfigFile(
  store: ConfigStore,
  path: string,
  options: WatchConfigOptions = {},
): ConfigWatcher {
  const { onReload, onError, env, debounceMs = 100, pollMs = 500, sighup = true } = options;
  const startPolling = options.startPolling ?? ((poll: () => void) => {
    const interval = setInterval(poll, pollMs);
    return () => clearInterval(interval);
  });
  const absolute = resolve(path);
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let queue = Promise.resolve();
  let appliedText = readTextOrUndefined(absolute);
  let rejectedText: string | undefined;

  const report = (error: unknown) => {
    if (!closed) onError?.(error);
  };

  const reloadOnce = async () => {
    if (closed) return;
    let text: string;
    try {
      text = await Deno.readTextFile(absolute);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      report(
        new ConfigError(path, [`(file): the file cannot be read (${reason})`], { cause: error }),
      );
      return;
    }
    // Saving without changes, or an editor's extra events, should not bump the version,
    // nor report the same broken file twice.
    if (text === appliedText || text === rejectedText || closed) return;
    // An editor that truncates before writing shows an empty file for a moment;
    // serving "no channels" from it would fail every request.
    if (text.trim() === "") {
      report(new ConfigError(path, ["(file): the file is empty; the previous config stays"]));
      return;
    }
    let config: Config;
    try {
      config = parseConfigText(text, { env, source: path, baseDir: configDir(path) });
    } catch (error) {
      rejectedText = text;
      report(error);
      return;
    }
    appliedText = text;
    try {
      const snapshot = store.replace(config);
      onReload?.(snapshot);
    } catch (error) {
      report(error);
    }
  };

  const reload = () => {
    queue = queue.then(reloadOnce);
    return queue;
  };

  const schedule = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void reload();
    }, debounceMs);
  };

  // Polled, not watched: a file-system watch reports on the whole directory, where the
  // SQLite database usually sits too, and its writes woke the watcher (and the event loop)
  // on every request, costing more CPU than the rest of the request's bookkeeping. A stat
  // every half second (synchronous, and cheap for one local file) sees every kind of
  // save, a file renamed over the old one included.
  let seen = fingerprintOf(absolute);
  const stopPolling = startPolling(() => {
    if (closed) return;
    const now = fingerprintOf(absolute);
    if (now === seen) return;
    seen = now;
    schedule();
  });

  const listenSighup = options.listenSighup ?? ((listener: () => void) => {
    if (Deno.build.os === "windows") return () => {};
    Deno.addSignalListener("SIGHUP", listener);
    return () => Deno.removeSignalListener("SIGHUP", listener);
  });
  const stopSighup = sighup ? listenSighup(() => void reload()) : () => {};

  return {
    reload,
    close() {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      stopSighup();
      stopPolling();
    },
  };
}

/** What tells one version of the file from the next: inode, size and modification time. */
function fingerprintOf(path: string): string {
  try {
    const { ino, size, mtime } = Deno.statSync(path);
    return `${ino}:${size}:${mtime?.getTime()}`;
  } catch {
    return "missing";
  }
}

/** The file's text, or undefined when it cannot be read (the first reload will say why). */
function readTextOrUndefined(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}
