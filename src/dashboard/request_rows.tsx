/**
 * Requests as rows of a table (the requests page, and the recent requests and failures of a
 * key's, an account's, a model's page): each request id, key, account, model and channel
 * leads to its own page; on a phone each row is a card that keeps every column.
 */
import type { FC } from "hono/jsx";
import type { RequestJson } from "../admin/requests.ts";
import {
  AccountLink,
  ChannelLink,
  KeyLink,
  ModelLink,
  RequestLink,
  Time,
  Usd,
  useZone,
} from "./figures.tsx";
import { count, duration } from "./format.ts";

/** The columns of the table, in order. */
const HEAD = [
  "Time",
  "Request",
  "Key",
  "Model",
  "Channel",
  "Status",
  "Tokens in / out",
  "Spend",
  "Duration",
];
const NUMERIC = new Set(["Tokens in / out", "Spend", "Duration"]);

/** A status's badge: good, a refusal's warning, or bad. */
export function badgeOf(status: string): string {
  return status === "ok" ? "good" : status === "refused" ? "warn" : "bad";
}

/** A table of requests, newest first; `names` gives keys' names by id. */
export const RequestsTable: FC<{
  rows: RequestJson[];
  names?: ReadonlyMap<string, string | null>;
  caption: string;
  empty?: string;
}> = ({ rows, names, caption, empty = "No requests match these filters." }) => {
  const zone = useZone();
  return (
    <div class="table-frame">
      <table class="stack" aria-label={caption}>
        <thead>
          <tr>
            {HEAD.map((name) => (
              <th class={NUMERIC.has(name) ? "num" : undefined}>
                {name === "Time" ? `Time (${zone.name})` : name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && (
            <tr>
              <td colspan={HEAD.length} class="muted">{empty}</td>
            </tr>
          )}
          {rows.map((row) => (
            <tr data-request={row.request_id}>
              <td data-label="Time">
                <Time at={row.time} />
              </td>
              <td data-label="Request" class="title">
                <RequestLink id={row.request_id} />
                <small class="muted sub">
                  {row.entry_point === null
                    ? `${row.method} ${row.path}`
                    : `${row.entry_point}${row.stream ? " · stream" : ""}`}
                </small>
              </td>
              <td data-label="Key">
                {row.key_id === null
                  ? (row.key_prefix ? <code title="an unknown key">{row.key_prefix}</code> : "–")
                  : <KeyLink id={row.key_id} name={names?.get(row.key_id)} />}
                {row.account !== null && (
                  <small class="muted sub">
                    {"of "}
                    <AccountLink name={row.account} />
                  </small>
                )}
              </td>
              <td data-label="Model">
                {row.model === null ? "–" : <ModelLink name={row.model} />}
                {row.served_model && row.served_model !== row.model && (
                  <>
                    {" → "}
                    <ModelLink name={row.served_model} />
                  </>
                )}
              </td>
              <td data-label="Channel">
                <ChannelLink name={row.channel} />
              </td>
              <td data-label="Status" class="wrap">
                <span class={`badge ${badgeOf(row.status)}`}>{row.status}</span>
                {row.code !== null && <code class="sub">{`${row.http_status} ${row.code}`}</code>}
                {row.count > 1 && <small class="sub">{`× ${count(row.count)} this minute`}</small>}
                {row.reason && <small class="reason">{` ${row.reason}`}</small>}
              </td>
              <td class="num" data-label="Tokens in / out">
                {count(row.input_tokens)} / {count(row.output_tokens)}
                {row.cached_tokens > 0 && (
                  <small class="muted sub">{`${count(row.cached_tokens)} cached`}</small>
                )}
              </td>
              <td class="num" data-label="Spend">
                <Usd amount={row.cost_usd} />
              </td>
              <td class="num" data-label="Duration">{duration(row.duration_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
};
