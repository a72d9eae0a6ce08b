/**
 * The alerts of a serving process: the outbox on its database, the delivery worker, and
 * the listener the router tells of channels cooling down and recovering (their incidents
 * are kept in the database, so every node shares one per channel).
 */
import type { Config } from "../config/schema.ts";
import type { ServingDb } from "../db/serving_db.ts";
import { describeError, type Logger } from "../log.ts";
import type { ChannelHealthListener } from "../routing/health.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import { createWebhookPost, type WebhookPost } from "../upstream/webhook_post.ts";
import { createOutbox } from "./outbox.ts";
import { type AlertWorker, type DeliveryResult, startAlertWorker } from "./worker.ts";

/** What a serving process's alerts are built from. */
export interface ServingAlertsDeps {
  db: Pick<ServingDb, "client" | "kind">;
  config: () => Config;
  now: () => number;
  clock: AlarmClock;
  log: Logger;
  instanceId: string;
  onDelivery?: (result: DeliveryResult) => void;
  /** How webhooks are posted (fetch unless a test passes its own). */
  post?: WebhookPost;
}

/** The outbox and the listener at once; the worker from `start`, once the process serves. */
export function servingAlerts(deps: ServingAlertsDeps) {
  const outbox = createOutbox(deps.db.client, deps.db.kind);
  const channelHealth: ChannelHealthListener = (channel, state, reason) => {
    if (!deps.config().alerts.channels) return;
    outbox.channelChanged(channel, state, reason, deps.now()).catch((error) =>
      deps.log.error("recording a channel incident failed", {
        channel,
        error: describeError(error),
      })
    );
  };
  let worker: AlertWorker | undefined;
  return {
    outbox,
    channelHealth,
    start() {
      worker ??= startAlertWorker({
        outbox,
        config: deps.config,
        post: deps.post ?? createWebhookPost(),
        now: deps.now,
        clock: deps.clock,
        log: deps.log,
        instanceId: deps.instanceId,
        onDelivery: deps.onDelivery,
      });
      return worker;
    },
    async stop() {
      await worker?.stop();
    },
  };
}
