/**
 * The delivery worker of one serving process, off the request path: every second it looks
 * for keys about to expire (each minute), announces channel incidents whose quiet period is
 * over, gives new events their data and deliveries, then claims the deliveries due and
 * sends them (each attempt bounded in time), recording each outcome: delivered on a 2xx,
 * else tried again later under the same `webhook-id` (backoff.ts) until it has failed. A
 * claim is a lease in the database, so a delivery is sent by one node at a time; one a
 * node was sending when it died is sent again (at least once).
 */
import type { Config } from "../config/schema.ts";
import type { WebhookConfig } from "../config/budgets_schema.ts";
import { describeError, type Logger } from "../log.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import type { WebhookPost } from "../upstream/webhook_post.ts";
import { nextAttemptAt } from "./backoff.ts";
import { eventData, namedIn, slackBody, standardBody } from "./event_data.ts";
import type { ClaimedDelivery, Outbox } from "./outbox.ts";
import { webhookSigner } from "./signing.ts";

/** How long one attempt may take. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** How long a claim keeps other nodes off a delivery: well past an attempt's time. */
export const LEASE_MS = 60_000;
/** How often the worker looks at the outbox. */
export const POLL_MS = 1_000;
/** How often keys about to expire are looked for. */
const KEY_SCAN_MS = 60_000;
const DAY_MS = 86_400_000;

/** How one attempt ended, for the metrics. */
export type DeliveryResult = "delivered" | "retried" | "failed";

/** What delivering needs. */
export interface DeliveryDeps {
  outbox: Outbox;
  config: () => Config;
  post: WebhookPost;
  now: () => number;
  log: Logger;
  onDelivery?: (result: DeliveryResult) => void;
}

/** A running worker. */
export interface AlertWorker {
  /** Looks at the outbox now (and resolves when done), besides every POLL_MS. */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the worker of a serving process (`instanceId` claims its deliveries). */
export function startAlertWorker(
  deps: DeliveryDeps & { clock: AlarmClock; instanceId: string; pollMs?: number },
): AlertWorker {
  const deliver = deliverer(deps);
  let stopped = false;
  let lastKeyScan = -Infinity;
  let running: Promise<void> | undefined;
  const pass = async () => {
    const config = deps.config();
    const now = deps.now();
    if (now - lastKeyScan >= KEY_SCAN_MS) {
      lastKeyScan = now;
      await deps.outbox.keysExpiring(now, config.alerts.key_expiry_days * DAY_MS);
    }
    if (config.alerts.channels) await deps.outbox.reportIncidents(now);
    await expandEvents(deps.outbox, config, now);
    const claimed = await deps.outbox.claim(now, LEASE_MS, deps.instanceId, 16);
    await Promise.all(claimed.map(deliver));
  };
  const alarm = deps.clock.alarm({ ring: () => void run() });
  const run = (): Promise<void> =>
    running ??= pass().catch((error) => {
      deps.log.error("delivering alerts failed", { error: describeError(error) });
    }).finally(() => {
      running = undefined;
      if (!stopped) alarm.set(deps.clock.now() + (deps.pollMs ?? POLL_MS));
    });
  void run();
  return {
    async tick() {
      await running;
      await run();
    },
    async stop() {
      stopped = true;
      alarm.cancel();
      await running;
    },
  };
}

/** Gives new events their data and one delivery per webhook that wants them. */
export async function expandEvents(outbox: Outbox, config: Config, now: number): Promise<void> {
  const events = await outbox.unexpanded();
  if (events.length === 0) return;
  const wanted = namedIn(events);
  const names = await outbox.names(wanted.accounts, wanted.keys);
  for (const event of events) {
    const webhooks = event.type === "test"
      ? (event.facts.webhooks as string[] ?? [])
      : config.alerts.webhooks
        .filter((webhook) => webhook.events.includes("*") || webhook.events.includes(event.type))
        .map((webhook) => webhook.name);
    await outbox.expand(event.id, eventData(event, names), webhooks, now);
  }
}

/** Sends claimed deliveries and records how each went. */
export function deliverer(
  deps: DeliveryDeps,
): (claimed: ClaimedDelivery) => Promise<DeliveryResult> {
  const sign = webhookSigner();
  return async ({ event, webhook: name, attempts }) => {
    const config = deps.config();
    const webhook = config.alerts.webhooks.find((candidate) => candidate.name === name);
    let error: string;
    if (!webhook) {
      error = `The webhook "${name}" is no longer in the config.`;
    } else {
      try {
        const outcome = await send(webhook, event, sign, deps);
        if (outcome.ok) {
          await deps.outbox.delivered(event.id, name, deps.now());
          deps.onDelivery?.("delivered");
          return "delivered";
        }
        error = outcome.error;
      } catch (failure) {
        error = failure instanceof Error ? failure.message : String(failure);
      }
    }
    const secrets = config.alerts.webhooks.map((hook) => hook.secret).filter(Boolean);
    for (const secret of secrets) error = error.replaceAll(secret, "[redacted]");
    const next = webhook ? nextAttemptAt(event.createdAt, attempts + 1, deps.now()) : null;
    await deps.outbox.attemptFailed(event.id, name, error.slice(0, 500), next);
    const result = next === null ? "failed" : "retried";
    deps.log.warn("webhook delivery failed", {
      event: event.id,
      webhook: name,
      attempts: attempts + 1,
      result,
      error: error.slice(0, 200),
    });
    deps.onDelivery?.(result);
    return result;
  };
}

/** One attempt: the body in the webhook's format, signed when it has a secret. */
async function send(
  webhook: WebhookConfig,
  event: ClaimedDelivery["event"],
  sign: ReturnType<typeof webhookSigner>,
  deps: DeliveryDeps,
) {
  const data = event.data ?? {};
  const body = webhook.format === "slack" ? slackBody(event, data) : standardBody(event, data);
  const headers = webhook.secret
    ? await sign(webhook.secret, event.id, Math.floor(deps.now() / 1000), body)
    : { "webhook-id": event.id };
  return await deps.post(webhook.url, { ...headers }, body, ATTEMPT_TIMEOUT_MS);
}
