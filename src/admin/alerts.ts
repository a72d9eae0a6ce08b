/**
 * Alerts in the admin service: the events with their deliveries (`alerts list`), and a
 * signed `test` event sent at once to every webhook or the one named (`alerts test`); a
 * delivery that fails there stays pending, for a serving process to retry.
 */
import { newEventId } from "../db/alert_rows.ts";
import { eventData, namedIn } from "../alerts/event_data.ts";
import type { Outbox, StoredEvent } from "../alerts/outbox.ts";
import { deliverer, LEASE_MS } from "../alerts/worker.ts";
import { silentLogger } from "../log.ts";
import type { WebhookPost } from "../upstream/webhook_post.ts";
import type { AdminDeps } from "./deps.ts";
import { invalidField } from "./errors.ts";

/** A delivery as `alerts list --json` shows it. */
export interface DeliveryJson {
  webhook: string;
  attempts: number;
  status: string;
  last_error: string | null;
  delivered_at: string | null;
}

/** An event as `alerts list --json` shows it (design.md). */
export interface AlertJson {
  id: string;
  type: string;
  scope: string | null;
  threshold: number | null;
  created_at: string;
  data: Record<string, unknown>;
  deliveries: DeliveryJson[];
}

/** What the alerts of the admin service need beside its deps. */
export interface AlertsDeps {
  outbox: Outbox;
  post: WebhookPost;
}

/** The alert operations of the admin service. */
export interface AlertAdmin {
  /** The newest events (at most `limit`, 100 by default), newest first. */
  list(query?: { limit?: number }): Promise<AlertJson[]>;
  /** Sends a `test` event to every webhook, or to `webhook`; answers it with its deliveries. */
  test(input?: { webhook?: string }): Promise<AlertJson>;
}

const iso = (ms: number | null) => ms === null ? null : new Date(ms).toISOString();

/** The alert operations over `deps` (none without an outbox: 503 at their use). */
export function alertAdmin(deps: AdminDeps & { alerts?: AlertsDeps }): AlertAdmin {
  const outboxOf = () => {
    if (!deps.alerts) throw new Error("Alerts need the database's outbox.");
    return deps.alerts;
  };
  const list: AlertAdmin["list"] = async ({ limit = 100 } = {}) => {
    const { outbox } = outboxOf();
    const rows = await outbox.list(Math.min(Math.max(1, limit), 1_000));
    const wanted = namedIn(rows.map((row) => row.event));
    const names = await outbox.names(wanted.accounts, wanted.keys);
    return rows.map(({ event, deliveries }) => ({
      id: event.id,
      type: event.type,
      scope: scopeOf(event, names.accounts),
      threshold: event.thresholdPpm === null ? null : event.thresholdPpm / 1e6,
      created_at: new Date(event.createdAt).toISOString(),
      data: event.data ?? eventData(event, names),
      deliveries: deliveries.map((delivery) => ({
        webhook: delivery.webhook,
        attempts: delivery.attempts,
        status: delivery.status,
        last_error: delivery.lastError,
        delivered_at: iso(delivery.deliveredAt),
      })),
    }));
  };
  return {
    list,
    async test(input = {}) {
      const { outbox, post } = outboxOf();
      const config = deps.config();
      const hooks = config.alerts.webhooks.filter((hook) =>
        input.webhook === undefined || hook.name === input.webhook
      );
      if (hooks.length === 0) {
        throw invalidField(
          "webhook",
          input.webhook === undefined
            ? "There is no webhook to test: add [[alerts.webhooks]] to the config."
            : `There is no webhook "${input.webhook}" in the config; it has ${
              config.alerts.webhooks.map((hook) => `"${hook.name}"`).join(", ") || "none"
            }.`,
        );
      }
      const now = deps.now();
      const id = newEventId();
      const webhooks = hooks.map((hook) => hook.name);
      const facts = { webhooks, message: "A test alert from tollgate." };
      await outbox.add({
        id,
        type: "test",
        scope: null,
        thresholdPpm: null,
        createdAt: now,
        facts,
      });
      await outbox.expand(id, { message: facts.message }, webhooks, now);
      const send = deliverer({
        outbox,
        config: deps.config,
        post,
        now: deps.now,
        log: silentLogger,
      });
      const claimed = await outbox.claim(now, LEASE_MS, null, webhooks.length, { eventId: id });
      await Promise.all(claimed.map(send));
      const [sent] = (await list({ limit: 20 })).filter((event) => event.id === id);
      return sent!;
    },
  };
}

/** An event's scope as shown: an account by its name, a key or a channel as recorded. */
function scopeOf(event: StoredEvent, accounts: Map<number, string>): string | null {
  if (!event.scope?.startsWith("account:")) return event.scope;
  const id = Number(event.scope.slice("account:".length));
  return `account:${accounts.get(id) ?? id}`;
}
