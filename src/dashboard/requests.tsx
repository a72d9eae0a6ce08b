/** The requests page: the ledger's rows, newest first, filtered as `tollgate requests` is. */
import type { FC } from "hono/jsx";
import type { RequestJson, RequestsQuery } from "../admin/requests.ts";
import type { Principal } from "../auth/principal.ts";
import { count, duration, time, usd } from "./format.ts";
import { Layout, Notice } from "./layout.tsx";

/** The statuses the filter offers (as `tollgate requests --status` takes them). */
const STATUSES = ["ok", "failed", "aborted", "interrupted"];

/** What the requests page shows. */
export interface RequestsPageProps {
  caller: Principal;
  /** The filters as the query gave them. */
  filters: Record<string, string>;
  rows: RequestJson[];
  /** The query string of the next (older) page, when there is one. */
  older?: string;
  error?: string;
}

const FILTERS: [keyof RequestsQuery, string, string][] = [
  ["id", "Request id", "req_…"],
  ["key", "Key id", "key_…"],
  ["account", "Account", ""],
  ["model", "Model", ""],
  ["since", "Since (ISO 8601)", "e.g. 2030-01-31"],
  ["until", "Until (ISO 8601)", "now"],
];

/** The requests page. */
export const RequestsPage: FC<RequestsPageProps> = ({ caller, filters, rows, older, error }) => (
  <Layout title="Requests" caller={caller} page="requests">
    <h1>Requests</h1>
    <Notice error={error} />
    <form method="get" action="/admin/requests" class="grid panel" aria-label="Filters">
      {FILTERS.map(([name, label, placeholder]) => (
        <label>
          {label}
          <input type="text" name={name} value={filters[name]} placeholder={placeholder} />
        </label>
      ))}
      <label>
        Status
        <select name="status">
          <option value="">any</option>
          {STATUSES.map((status) => (
            <option value={status} selected={filters.status === status}>{status}</option>
          ))}
        </select>
      </label>
      <label>
        Per page
        <input
          type="text"
          name="limit"
          inputmode="numeric"
          value={filters.limit}
          placeholder="50"
        />
      </label>
      <button type="submit">Filter</button>
    </form>
    <div class="table-frame">
      <table>
        <thead>
          <tr>
            <th>Time (UTC)</th>
            <th>Request</th>
            <th>Account</th>
            <th>Key</th>
            <th>Model</th>
            <th>Entry</th>
            <th>Channel</th>
            <th>Status</th>
            <th class="num">In</th>
            <th class="num">Out</th>
            <th class="num">Cached</th>
            <th class="num">Spend</th>
            <th class="num">Time</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && (
            <tr>
              <td colspan={13} class="muted">No requests match these filters.</td>
            </tr>
          )}
          {rows.map((row) => (
            <tr data-request={row.request_id}>
              <td>{time(row.time)}</td>
              <td>
                <code>{row.request_id}</code>
              </td>
              <td>{row.account}</td>
              <td>
                <code>{row.key_id}</code>
              </td>
              <td>{row.model}</td>
              <td>{row.entry_point}{row.stream ? " (stream)" : ""}</td>
              <td>{row.channel ?? "–"}</td>
              <td title={row.reason ?? undefined}>
                <span class={`badge ${row.status === "ok" ? "good" : "bad"}`}>{row.status}</span>
              </td>
              <td class="num">{count(row.input_tokens)}</td>
              <td class="num">{count(row.output_tokens)}</td>
              <td class="num">{count(row.cached_tokens)}</td>
              <td class="num">{usd(row.cost_usd)}</td>
              <td class="num">{duration(row.duration_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    <nav class="pager" aria-label="Pages">
      {filters.before !== undefined && <a href={`/admin/requests?${newest(filters)}`}>Newest</a>}
      {older !== undefined && <a href={`/admin/requests?${older}`} rel="next">Older</a>}
    </nav>
  </Layout>
);

/** The query of the first page under the same filters. */
function newest(filters: Record<string, string>): string {
  const query = new URLSearchParams(filters);
  query.delete("before");
  return query.toString();
}
