/**
 * The config's budgets and alerts (design.md): `[budgets]`, a group's `key_budget`,
 * `[alerts]` and `[[alerts.webhooks]]`, with the checks across their fields.
 */
import * as z from "zod/mini";
import { timeZone } from "../clock/time_zone.ts";
import {
  flag,
  httpUrl,
  list,
  nonEmptyText,
  nonNegativeNumber,
  oneOf,
  optional,
  positiveInteger,
  table,
  text,
  withDefault,
} from "./fields.ts";

/** A budget: USD each period (`total`: never renews). */
export const BudgetSchema = table({
  usd: nonNegativeNumber(),
  period: withDefault(oneOf(["day", "week", "month", "total"]), "month"),
});
/** A budget in the config: USD each period. */
export type BudgetConfig = z.infer<typeof BudgetSchema>;

/** `[budgets]`: where periods start, and every account's default budget. */
export const BudgetsSchema = table({
  timezone: withDefault(
    text().check(z.refine((name) => {
      try {
        timeZone(name);
        return true;
      } catch {
        return false;
      }
    }, 'must be "UTC", an offset such as "+05:30", or an IANA time zone such as "Europe/Berlin"')),
    "UTC",
    "Where days, weeks (from Monday) and months of budget periods start.",
  ),
  account: optional(BudgetSchema, "The default budget of each account; none when left out."),
});
/** `[budgets]`. */
export type BudgetsConfig = z.infer<typeof BudgetsSchema>;

/** `[[alerts.webhooks]]`: where alert events go. */
export const WebhookSchema = table({
  name: nonEmptyText(),
  url: httpUrl(),
  secret: withDefault(
    text(),
    "",
    "whsec_... (Standard Webhooks: base64 after the prefix); optional for slack.",
  ),
  format: withDefault(
    oneOf(["standard", "slack"]),
    "standard",
    'standard: signed Standard Webhooks; slack: {"text": ...} (also Discord-compatible).',
  ),
  events: withDefault(list(nonEmptyText()), () => ["*"], '["*"] or a list of event types.'),
});
/** One webhook. */
export type WebhookConfig = z.infer<typeof WebhookSchema>;

/** `[alerts]`: the thresholds, and the webhooks that hear of them. */
export const AlertsSchema = table({
  thresholds: withDefault(
    list(nonNegativeNumber()).check(
      z.refine((values) => values.every((value) => value > 0 && value <= 1), {
        message: "must be fractions of a budget above 0 and at most 1",
      }),
    ),
    () => [0.5, 0.8, 0.95, 1],
    "Fractions of a budget spent (settled) that are announced once each period.",
  ),
  balance_below_usd: withDefault(
    list(nonNegativeNumber()),
    () => [],
    "Floors of prepaid accounts' available balance announced once until a top-up.",
  ),
  key_expiry_days: withDefault(
    positiveInteger(),
    7,
    "A key expiring within this many days is announced once.",
  ),
  channels: withDefault(flag(), true, "A channel that cools down, and its recovery."),
  webhooks: withDefault(list(WebhookSchema), () => []),
});
/** `[alerts]`. */
export type AlertsConfig = z.infer<typeof AlertsSchema>;

/** The event types a webhook may ask for. */
export const ALERT_EVENT_TYPES = [
  "budget.threshold_crossed",
  "budget.exhausted",
  "balance.low",
  "key.expiring",
  "channel.down",
  "channel.up",
  "test",
] as const;

/** What one field of `[alerts]` cannot say alone: unique names, known events, signing secrets. */
export function checkAlerts(
  alerts: AlertsConfig,
  addIssue: (path: (string | number)[], message: string) => void,
): void {
  const names = new Set<string>();
  alerts.webhooks.forEach((webhook, index) => {
    const path = ["alerts", "webhooks", index];
    if (names.has(webhook.name)) {
      addIssue([...path, "name"], `webhook name "${webhook.name}" is used twice`);
    }
    names.add(webhook.name);
    webhook.events.forEach((event, i) => {
      if (event !== "*" && !(ALERT_EVENT_TYPES as readonly string[]).includes(event)) {
        addIssue(
          [...path, "events", i],
          `must be "*" or one of ${ALERT_EVENT_TYPES.map((type) => `"${type}"`).join(", ")}`,
        );
      }
    });
    const unset = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/.test(webhook.secret);
    if (webhook.format === "standard" && !unset && !isWebhookSecret(webhook.secret)) {
      addIssue(
        [...path, "secret"],
        "a standard webhook needs a secret whsec_ followed by base64 (24 to 64 bytes)",
      );
    }
  });
}

/** Whether `secret` is `whsec_` and the base64 of 24 to 64 bytes (Standard Webhooks). */
export function isWebhookSecret(secret: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!match) return false;
  try {
    const length = atob(match[1]!).length;
    return length >= 24 && length <= 64;
  } catch {
    return false;
  }
}
