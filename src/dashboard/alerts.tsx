/** The alerts page: alert events, newest first, with each delivery's state; a test. */
import type { Child, FC } from "hono/jsx";
import type { AlertJson } from "../admin/alerts.ts";
import type { AccountEntryJson } from "../admin/accounts.ts";
import type { Principal } from "../auth/principal.ts";
import { Time, Usd } from "./figures.tsx";
import { Layout, Notice } from "./layout.tsx";

/** What happened, in a few words, for the table. */
function summary(event: AlertJson): Child {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case "budget.threshold_crossed":
    case "budget.exhausted":
      return `$${data.spent_usd} of $${data.budget_usd} spent` +
        (event.threshold === null ? "" : ` (${Math.round(event.threshold * 100)}%)`);
    case "balance.low":
      return `$${data.available_usd} left, under $${data.floor_usd}`;
    case "key.expiring":
      return (
        <>
          expires <Time at={String(data.expires_at)} />
        </>
      );
    case "channel.down":
    case "channel.up":
      return String(data.reason ?? "");
    default:
      return String(data.message ?? "");
  }
}

/** The alerts page. */
export const AlertsPage: FC<{
  caller: Principal;
  events: AlertJson[];
  webhooks: string[];
  error?: string;
  done?: string;
}> = ({ caller, events, webhooks, error, done }) => (
  <Layout title="Alerts" caller={caller} page="alerts">
    <h1>Alerts</h1>
    <Notice error={error} done={done} />
    <form method="post" action="/admin/alerts/test" class="actions" aria-label="Send a test">
      <select name="webhook" aria-label="Webhook">
        <option value="">every webhook</option>
        {webhooks.map((name) => <option value={name}>{name}</option>)}
      </select>
      <button type="submit" disabled={webhooks.length === 0}>Send a test event</button>
    </form>
    {events.length === 0 ? <p>No alert events yet.</p> : (
      <div class="table-frame">
        <table>
          <thead>
            <tr>
              <th>When</th>
              <th>Event</th>
              <th>Scope</th>
              <th>What</th>
              <th>Deliveries</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr data-event={event.id}>
                <td>
                  <Time at={event.created_at} />
                </td>
                <td>{event.type}</td>
                <td>{event.scope ?? "–"}</td>
                <td>{summary(event)}</td>
                <td>
                  {event.deliveries.length === 0
                    ? "no webhook"
                    : event.deliveries.map((d) => (
                      <div data-delivery={d.webhook}>
                        <span
                          class={`badge ${
                            d.status === "delivered"
                              ? "good"
                              : d.status === "failed"
                              ? "bad"
                              : "warn"
                          }`}
                        >
                          {d.status}
                        </span>{" "}
                        {d.webhook}, {d.attempts} attempt{d.attempts === 1 ? "" : "s"}
                        {d.last_error && <small title={d.last_error}>: {d.last_error}</small>}
                      </div>
                    ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </Layout>
);

/** An account's top-ups and adjustments. */
export const HistoryPage: FC<{ caller: Principal; name: string; entries: AccountEntryJson[] }> = (
  { caller, name, entries },
) => (
  <Layout title={`History of ${name}`} caller={caller} page="accounts">
    <h1>History of {name}</h1>
    {entries.length === 0 ? <p>No top-up or adjustment yet.</p> : (
      <div class="table-frame">
        <table>
          <thead>
            <tr>
              <th>When</th>
              <th>Kind</th>
              <th class="num">USD</th>
              <th class="num">Balance after</th>
              <th>Reason</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr>
                <td>
                  <Time at={entry.at} />
                </td>
                <td>{entry.kind}</td>
                <td class="num">
                  <Usd amount={entry.usd} />
                </td>
                <td class="num">
                  <Usd amount={entry.balance_usd} />
                </td>
                <td>{entry.reason ?? "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </Layout>
);
