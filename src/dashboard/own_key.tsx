/**
 * What a key that is not an admin key sees: itself (limits, quota, expiry), its account's
 * balance, and its own usage over a range.
 */
import type { FC } from "hono/jsx";
import type { AccountJson } from "../admin/accounts.ts";
import type { KeyJson } from "../admin/keys.ts";
import type { Principal } from "../auth/principal.ts";
import { count, time, usd } from "./format.ts";
import { Layout, Notice } from "./layout.tsx";
import type { UsageView } from "./usage_range.ts";
import { FiguresTable, RangeForm, sumBy, Totals, UsageChart } from "./usage_view.tsx";
import { KeyState } from "./keys.tsx";

/** The page of the caller's own key. */
export const OwnKeyPage: FC<{
  caller: Principal;
  keyJson: KeyJson;
  account: AccountJson;
  view?: UsageView;
  error?: string;
}> = ({ caller, keyJson: key, account, view, error }) => {
  return (
    <Layout title="My key" caller={caller} page="own">
      <h1>{key.name ?? key.id}</h1>
      <Notice error={error} />
      <ul class="cards">
        <li class="card" data-key={key.id}>
          <h3>Key</h3>
          <dl class="fields">
            <dt>Id</dt>
            <dd>
              <code>{key.id}</code> (<code>{key.prefix}…</code>)
            </dd>
            <dt>State</dt>
            <dd>
              <KeyState keyJson={key} />
            </dd>
            <dt>Group</dt>
            <dd>{key.group}</dd>
            <dt>Quota</dt>
            <dd>
              {key.quota_tokens === null
                ? `${count(key.used_tokens)} tokens used, no quota`
                : `${count(key.used_tokens)} of ${count(key.quota_tokens)} tokens used`}
            </dd>
            <dt>Expires</dt>
            <dd>{key.expires_at === null ? "never" : time(key.expires_at)}</dd>
            <dt>Models</dt>
            <dd>{key.models === null ? "all of its group's" : key.models.join(", ")}</dd>
            <dt>From</dt>
            <dd>{key.allow_ips === null ? "any address" : key.allow_ips.join(", ")}</dd>
          </dl>
        </li>
        <li class="card" data-account={account.name}>
          <h3>Account {account.name}</h3>
          <dl class="fields">
            <dt>Balance</dt>
            <dd>{account.unlimited ? "unlimited" : usd(account.balance_usd)}</dd>
            <dt>Held now</dt>
            <dd>{usd(account.held_usd)}</dd>
            {!account.unlimited && (
              <>
                <dt>Available</dt>
                <dd>{usd(account.available_usd)}</dd>
              </>
            )}
          </dl>
        </li>
      </ul>
      {view && (
        <>
          <h2>Usage</h2>
          <RangeForm view={view} action="/admin" />
          <Totals view={view} />
          <UsageChart view={view} />
          <FiguresTable
            caption="Usage by model over the range"
            head={["Model"]}
            rows={sumBy(view.report.rows, (row) => row.model).map(([model, figures]) => ({
              cells: [model],
              figures,
            }))}
          />
        </>
      )}
    </Layout>
  );
};
