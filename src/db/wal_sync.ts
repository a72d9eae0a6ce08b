/**
 * Syncing a SQLite file's write-ahead log in the background. With `synchronous = NORMAL`
 * SQLite syncs the log only when it checkpoints, and a checkpoint runs inside the commit
 * that passes `wal_autocheckpoint`: on the serving thread, with every request waiting.
 * The whole log written since the last checkpoint was dirty by then, and syncing it was
 * most of that stall (bench/README.md). Synced every second on the runtime's I/O
 * threads, the log leaves the checkpoint only what the last second wrote; a machine that
 * loses power also loses at most that second.
 */

/** How often the log is synced while the connection writes. */
export const WAL_SYNC_EVERY_MS = 1_000;

/** A background sync of one log file. */
export interface WalSync {
  /** Syncs the log if the connection wrote since the last sync; true if it did. */
  sync(): Promise<boolean>;
  /** Stops syncing, once any sync under way has ended. */
  close(): Promise<void>;
}

/**
 * Syncs `walPath` every `everyMs` while `written` (the connection's count of writes)
 * moves. A failed sync is let go: SQLite's checkpoint still syncs the log itself.
 */
export function startWalSync(
  walPath: string,
  written: () => number,
  everyMs = WAL_SYNC_EVERY_MS,
): WalSync {
  let synced = written();
  let file: Deno.FsFile | undefined;
  let under: Promise<boolean> | undefined;
  let closed = false;
  const syncNow = async (): Promise<boolean> => {
    const writes = written();
    if (writes === synced) return false;
    try {
      // The log appears with the connection's first write, and lives as long as it.
      file ??= await Deno.open(walPath, { read: true, write: true });
      await file.syncData();
      synced = writes;
      return true;
    } catch {
      return false;
    }
  };
  const sync = (): Promise<boolean> => {
    if (closed) return Promise.resolve(false);
    return under ??= syncNow().finally(() => under = undefined);
  };
  const timer = setInterval(sync, everyMs);
  // A CLI command that wrote must not wait for the next sync to exit.
  Deno.unrefTimer(timer);
  return {
    sync,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await under;
      file?.close();
    },
  };
}
