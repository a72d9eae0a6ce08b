/**
 * An account's page (`/admin/accounts/{name}`): its balance, holds and state, top-up,
 * disable and enable; its keys; its usage over a range, by model and key; its recent
 * requests and failures.
 */
import type { FC } from "hono/jsx";
import type { AccountJson } from "../admin/accounts.ts";
import type { KeyJson } from "../admin/keys.ts";
import type { Principal } from "../auth/principal.ts";
import { AccountActions, AccountBudgetForm, AccountState } from "./accounts.tsx";
import { KeyLink, pageOf, Time } from "./figures.tsx";
import { KeyState, quotaText } from "./keys.tsx";
import { Layout, Notice } from "./layout.tsx";
import { AccountFigures } from "./own_key.tsx";
import { type Recent, RecentRequests } from "./recent.tsx";
import type { UsageView } from "./usage_range.ts";
import { ByModelTable, FiguresTable, RangeForm, sumBy, Totals, UsageChart } from "./usage_view.tsx";

/** What an account's page shows. */
export interface AccountPageProps {
  caller: Principal;
  account: AccountJson;
  keys: KeyJson[];
  view?: UsageView;
  recent: Recent;
  error?: string;
  done?: string;
  now: number;
}

/** An account's page. */
export const AccountPage: FC<AccountPageProps> = (props) => {
  const { caller, account, keys, view, now } = props;
  const names = new Map(keys.map((key) => [key.id, key.name]));
  return (
    <Layout title={account.name} caller={caller} page="accounts">
      <p class="crumbs">
        <a href="/admin/accounts">Accounts</a> /
      </p>
      <h1>
        {account.name} <AccountState account={account} />
      </h1>
      <Notice error={props.error} done={props.done} />
      <section class="panel" data-account={account.name} aria-label="The account">
        <AccountFigures account={account} />
        <AccountActions account={account} back="page" />
        <AccountBudgetForm account={account} back="page" />
      </section>
      <h2>Keys</h2>
      <div class="table-frame">
        <table class="stack" aria-label="Its keys">
          <thead>
            <tr>
              <th>Key</th>
              <th>State</th>
              <th>Quota</th>
              <th>Last used</th>
            </tr>
          </thead>
          <tbody>
            {keys.length === 0 && (
              <tr>
                <td colspan={4} class="muted">No keys yet.</td>
              </tr>
            )}
            {keys.map((key) => (
              <tr data-key={key.id}>
                <td data-label="Key" class="title">
                  <KeyLink id={key.id} name={key.name} />
                </td>
                <td data-label="State">
                  <KeyState keyJson={key} now={now} />
                </td>
                <td data-label="Quota">{quotaText(key)}</td>
                <td data-label="Last used">
                  <Time at={key.last_used_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {view && (
        <>
          <h2>Usage</h2>
          <RangeForm view={view} action={pageOf("accounts", account.name)} />
          <Totals view={view} />
          <UsageChart view={view} />
          <h3>By model</h3>
          <ByModelTable view={view} linked />
          <h3>By key</h3>
          <FiguresTable
            caption="Usage by key over the range"
            head={["Key"]}
            rows={sumBy(view.report.rows, (row) => row.key_id).map(([id, figures]) => ({
              name: id,
              cells: [<KeyLink id={id} name={names.get(id)} />],
              figures,
            }))}
          />
        </>
      )}
      <RecentRequests recent={props.recent} filter={{ account: account.name }} names={names} />
    </Layout>
  );
};
