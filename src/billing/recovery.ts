/**
 * Holds never outlive their request: a serving instance registers itself and beats
 * a heartbeat; at start and then periodically, holds that expired or belong to a
 * dead instance become `interrupted` ledger rows (so no request that reached an
 * upstream vanishes from the ledger). An instance on this host is dead when its
 * process is gone; one elsewhere when its heartbeat went stale.
 */
import type { ServingDb } from "../db/database.ts";

/** Heartbeat period of a serving instance. */
export const HEARTBEAT_MS = 10_000;
/** An instance on another host is presumed dead after this much silence. */
export const STALE_AFTER_MS = 6 * HEARTBEAT_MS;

/** Who this instance is, and how to tell whether another process is alive. */
export interface InstanceIdentity {
  id: string;
  host: string;
  pid: number;
  isProcessAlive: (pid: number) => boolean;
}

/**
 * Registers this instance and interrupts every hold no live request can settle; returns
 * how many. Silence and expiry are judged by the store's clock (the database's, when
 * several nodes share it), which the heartbeat returns.
 */
export async function recoverHolds(
  db: ServingDb,
  self: InstanceIdentity,
  now: number,
): Promise<number> {
  const { store } = db;
  const clock = await store.heartbeat({
    id: self.id,
    host: self.host,
    pid: self.pid,
    heartbeatAt: now,
  });
  const dead = (await store.listInstances())
    .filter((other) => other.id !== self.id)
    .filter((other) =>
      other.host === self.host
        // A recycled pid (a container restarts as pid 1) is ours now, not theirs.
        ? other.pid === self.pid || !self.isProcessAlive(other.pid)
        : clock - other.heartbeatAt > STALE_AFTER_MS
    )
    .map((other) => other.id);
  const holds = await store.findReleasableHolds(clock, dead);
  await store.interruptHolds(holds, clock);
  await store.removeInstances(dead);
  return holds.length;
}
