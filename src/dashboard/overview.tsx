/** The overview (an admin's first page): usage over a range, by model, key and account. */
import type { FC } from "hono/jsx";
import type { KeyJson } from "../admin/keys.ts";
import type { Principal } from "../auth/principal.ts";
import { Layout, Notice } from "./layout.tsx";
import type { UsageView } from "./usage_range.ts";
import { ByModelTable, FiguresTable, RangeForm, sumBy, Totals, UsageChart } from "./usage_view.tsx";

/** The overview page of `view`; `keys` name the keys of its rows. */
export const OverviewPage: FC<{
  caller: Principal;
  view?: UsageView;
  keys: KeyJson[];
  error?: string;
}> = ({ caller, view, keys, error }) => {
  const names = new Map(keys.map((key) => [key.id, key.name]));
  return (
    <Layout title="Overview" caller={caller} page="overview">
      <h1>Overview</h1>
      <Notice error={error} />
      {view && (
        <>
          <RangeForm view={view} action="/admin" />
          <Totals view={view} />
          <UsageChart view={view} />
          <h2>By model</h2>
          <ByModelTable view={view} />
          <h2>By key</h2>
          <FiguresTable
            caption="Usage by key over the range"
            head={["Key", "Account"]}
            rows={sumBy(view.report.rows, (row) => row.key_id).map(([id, figures]) => ({
              cells: [names.get(id) ? `${names.get(id)} (${id})` : id, figures.rows[0]!.account],
              figures,
            }))}
          />
          <h2>By account</h2>
          <FiguresTable
            caption="Usage by account over the range"
            head={["Account"]}
            rows={sumBy(view.report.rows, (row) => row.account).map(([account, figures]) => ({
              cells: [account],
              figures,
            }))}
          />
        </>
      )}
    </Layout>
  );
};
