/**
 * What a webhook receives of an event (design.md): `{"type","timestamp","data"}`, `data`
 * rendered from the event's facts with names looked up and money as decimal strings, as
 * webhook consumers expect; and the one-line text of a `slack` webhook.
 */
import { formatUsd } from "../billing/money.ts";
import type { StoredEvent } from "./outbox.ts";

/** Names of the accounts (by row id) and keys an event's facts name. */
export interface EventNames {
  accounts: Map<number, string>;
  keys: Map<string, { name: string | null; account: string }>;
}

const iso = (ms: unknown) => typeof ms === "number" ? new Date(ms).toISOString() : null;
const usd = (micros: unknown) => formatUsd(Number(micros ?? 0));

/** The account row ids and key ids of events' facts, for `names`. */
export function namedIn(events: readonly StoredEvent[]) {
  const accounts = new Set<number>();
  const keys = new Set<string>();
  for (const { facts } of events) {
    if (facts.kind === "account") accounts.add(Number(facts.id));
    if (facts.kind === "key") keys.add(String(facts.id));
  }
  return { accounts: [...accounts], keys: [...keys] };
}

/** The `data` of an event. */
export function eventData(event: StoredEvent, names: EventNames): Record<string, unknown> {
  const { facts } = event;
  const scope = () => {
    if (facts.kind === "key") {
      const key = names.keys.get(String(facts.id));
      return { kind: "key", id: facts.id, name: key?.name ?? null, account: key?.account ?? null };
    }
    const name = names.accounts.get(Number(facts.id)) ?? String(facts.id);
    return { kind: "account", id: name, name, account: name };
  };
  switch (event.type) {
    case "budget.threshold_crossed":
    case "budget.exhausted": {
      const budget = Number(facts.budget_micros);
      const spent = Number(facts.spent_micros);
      const held = Number(facts.held_micros);
      return {
        scope: scope(),
        threshold: (event.thresholdPpm ?? 0) / 1e6,
        budget_usd: usd(budget),
        spent_usd: usd(spent),
        held_usd: usd(held),
        remaining_usd: usd(Math.max(0, budget - spent - held)),
        period: facts.period,
        period_start: iso(facts.period_start),
        renews_at: iso(facts.renews_at),
        ...(facts.refused ? { refused: true } : {}),
      };
    }
    case "balance.low":
      return {
        account: names.accounts.get(Number(facts.id)) ?? String(facts.id),
        available_usd: usd(facts.available_micros),
        floor_usd: usd(facts.floor_micros),
      };
    case "key.expiring": {
      const key = names.keys.get(String(facts.id));
      return {
        key: { id: facts.id, name: key?.name ?? null, account: key?.account ?? null },
        expires_at: iso(facts.expires_at),
      };
    }
    case "channel.down":
    case "channel.up":
      return { channel: facts.channel, reason: facts.reason };
    default:
      return { ...facts };
  }
}

/** The body of a `standard` delivery. */
export function standardBody(event: StoredEvent, data: unknown): string {
  return JSON.stringify({ type: event.type, timestamp: iso(event.createdAt), data });
}

/** The `{"text": ...}` body of a `slack` delivery. */
export function slackBody(event: StoredEvent, data: Record<string, unknown>): string {
  return JSON.stringify({ text: `tollgate: ${sentence(event.type, data)}` });
}

/** What happened, in a sentence. */
function sentence(type: string, data: Record<string, unknown>): string {
  const scope = data.scope as { kind: string; id: string; account: string | null } | undefined;
  const whose = scope?.kind === "key"
    ? `key ${scope.id} of account ${scope.account}`
    : `account ${scope?.id}`;
  const per = data.period === "total" ? "in all" : `a ${data.period}`;
  const renews = data.renews_at ? `; it renews at ${data.renews_at}` : "; it never renews";
  switch (type) {
    case "budget.threshold_crossed":
      return `${whose} has spent $${data.spent_usd} of its $${data.budget_usd} budget ${per} ` +
        `(${Math.round(Number(data.threshold) * 100)}%)${renews}.`;
    case "budget.exhausted":
      return `${whose} has used up its $${data.budget_usd} budget ${per}${renews}.`;
    case "balance.low":
      return `account ${data.account} has $${data.available_usd} available, under $${data.floor_usd}.`;
    case "key.expiring": {
      const key = data.key as { id: string; account: string | null };
      return `key ${key.id} of account ${key.account} expires at ${data.expires_at}.`;
    }
    case "channel.down":
      return `channel ${data.channel} is down: ${data.reason}`;
    case "channel.up":
      return `channel ${data.channel} is up again: ${data.reason}`;
    default:
      return `a test alert${data.webhook ? ` for webhook ${data.webhook}` : ""}.`;
  }
}
