/** The requests page: the ledger's rows, newest first, filtered as `tollgate requests` is. */
import type { FC } from "hono/jsx";
import type { RequestJson, RequestsQuery } from "../admin/requests.ts";
import type { Principal } from "../auth/principal.ts";
import { Layout, Notice } from "./layout.tsx";
import { RequestsTable } from "./request_rows.tsx";

/** The statuses the filter offers (as `tollgate requests --status` takes them). */
const STATUSES = ["ok", "failed", "aborted", "interrupted", "refused"];

/** What the requests page shows. */
export interface RequestsPageProps {
  caller: Principal;
  /** The filters as the query gave them. */
  filters: Record<string, string>;
  rows: RequestJson[];
  /** Keys' names by id. */
  names?: ReadonlyMap<string, string | null>;
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
export const RequestsPage: FC<RequestsPageProps> = (
  { caller, filters, rows, names, older, error },
) => (
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
            <option
              value={status}
              selected={filters.status === status ||
                (status === "aborted" && filters.status === "abandoned")}
            >
              {status}
            </option>
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
    <RequestsTable rows={rows} names={names} caption="Requests, newest first" />
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
