/** A page's recent requests and recent failures (a key's, an account's, a model's). */
import type { FC } from "hono/jsx";
import type { RequestJson } from "../admin/requests.ts";
import { RequestsTable } from "./request_rows.tsx";
import { withQuery } from "./usage_view.tsx";

/** What a page shows of its requests: the newest, and the newest that failed. */
export interface Recent {
  requests: RequestJson[];
  failures: RequestJson[];
}

/** How many of each a page shows. */
export const RECENT = 10;

/** The two tables, each with a link to all of them on the requests page (`filter` selects). */
export const RecentRequests: FC<{
  recent: Recent;
  filter: Record<string, string>;
  names?: ReadonlyMap<string, string | null>;
}> = ({ recent, filter, names }) => (
  <>
    {([
      ["Recent requests", recent.requests, "No requests yet.", {}, "All its requests"],
      [
        "Recent failures",
        recent.failures,
        "No failed requests.",
        { status: "failed" },
        "All its failed requests",
      ],
    ] as const).map(([caption, rows, empty, more, all]) => (
      <>
        <h2>{caption}</h2>
        <RequestsTable rows={rows} names={names} caption={caption} empty={empty} />
        <p>
          <a href={withQuery("/admin/requests", { ...filter, ...more })}>{all}</a>
        </p>
      </>
    ))}
  </>
);
