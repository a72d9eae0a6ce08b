/**
 * The overview (an admin's first page): usage over a range, by model, key and account, each
 * leading to its own page; `?key=`, `?account=` and `?model=` narrow it to theirs.
 */
import type { FC } from "hono/jsx";
import type { KeyJson } from "../admin/keys.ts";
import type { Principal } from "../auth/principal.ts";
import { AccountLink, KeyLink, pageOf } from "./figures.tsx";
import { Layout, Notice } from "./layout.tsx";
import type { UsageView } from "./usage_range.ts";
import {
  ByModelTable,
  FiguresTable,
  RangeForm,
  rangeParams,
  sumBy,
  Totals,
  UsageChart,
  withQuery,
} from "./usage_view.tsx";

/** The overview page of `view`; `keys` name the keys of its rows. */
export const OverviewPage: FC<{
  caller: Principal;
  view?: UsageView;
  keys: KeyJson[];
  error?: string;
}> = ({ caller, view, keys, error }) => {
  const names = new Map(keys.map((key) => [key.id, key.name]));
  const filters = Object.entries(view?.scope ?? {}).filter((entry): entry is [string, string] =>
    entry[1] !== undefined
  );
  return (
    <Layout title="Overview" caller={caller} page="overview">
      <h1>Overview</h1>
      <Notice error={error} />
      {view && filters.length > 0 && (
        <p class="notice" data-filters>
          Only the usage of {filters.map(([kind, value], index) => (
            <>
              {index > 0 && " and "}
              {kind === "key" ? "key " : `${kind} `}
              <a href={pageOf(`${kind}s` as "keys", value)}>
                {kind === "key" ? names.get(value) ?? value : value}
              </a>
            </>
          ))}
          {" · "}
          <a href={withQuery("/admin", rangeParams(view))}>Show all usage</a>
        </p>
      )}
      {view && (
        <>
          <RangeForm view={view} action="/admin" keep={Object.fromEntries(filters)} />
          <Totals view={view} />
          <UsageChart view={view} />
          <h2>By model</h2>
          <ByModelTable view={view} linked />
          <h2>By key</h2>
          <FiguresTable
            caption="Usage by key over the range"
            head={["Key", "Account"]}
            rows={sumBy(view.report.rows, (row) => row.key_id).map(([id, figures]) => ({
              name: id,
              cells: [
                <KeyLink id={id} name={names.get(id)} />,
                <AccountLink name={figures.rows[0]!.account} />,
              ],
              figures,
            }))}
          />
          <h2>By account</h2>
          <FiguresTable
            caption="Usage by account over the range"
            head={["Account"]}
            rows={sumBy(view.report.rows, (row) => row.account).map(([account, figures]) => ({
              name: account,
              cells: [<AccountLink name={account} />],
              figures,
            }))}
          />
        </>
      )}
    </Layout>
  );
};
