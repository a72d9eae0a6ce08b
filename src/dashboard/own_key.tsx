/**
 * What a key that is not an admin key sees: itself (limits, quota, expiry), its account's
 * balance, and its own usage over a range.
 */
import type { FC } from "hono/jsx";
import type { AccountJson } from "../admin/accounts.ts";
import type { KeyJson } from "../admin/keys.ts";
import type { Principal } from "../auth/principal.ts";
import { Usd } from "./figures.tsx";
import { Layout, Notice } from "./layout.tsx";
import type { UsageView } from "./usage_range.ts";
import { ByModelTable, RangeForm, Totals, UsageChart } from "./usage_view.tsx";
import { KeyFacts } from "./keys.tsx";
import { BudgetFacts } from "./budget_view.tsx";

/** The page of the caller's own key. */
export const OwnKeyPage: FC<{
  caller: Principal;
  keyJson: KeyJson;
  account: AccountJson;
  view?: UsageView;
  error?: string;
  now: number;
}> = ({ caller, keyJson: key, account, view, error, now }) => {
  return (
    <Layout title="My key" caller={caller} page="own">
      <h1>{key.name ?? key.id}</h1>
      <Notice error={error} />
      <ul class="cards">
        <li class="card" data-key={key.id}>
          <h3>Key</h3>
          <KeyFacts keyJson={key} now={now} />
        </li>
        <li class="card" data-account={account.name}>
          <h3>Account {account.name}</h3>
          <AccountFigures account={account} />
        </li>
      </ul>
      {view && (
        <>
          <h2>Usage</h2>
          <RangeForm view={view} action="/admin" />
          <Totals view={view} />
          <UsageChart view={view} />
          <ByModelTable view={view} />
        </>
      )}
    </Layout>
  );
};

/** An account's balance, what is held of it and what is left, each named by `data-figure`. */
export const AccountFigures: FC<{ account: AccountJson }> = ({ account }) => (
  <dl class="fields">
    <dt>Balance</dt>
    <dd data-figure="balance_usd">
      {account.unlimited ? "unlimited" : <Usd amount={account.balance_usd} />}
    </dd>
    <dt>Held now</dt>
    <dd data-figure="held_usd">
      <Usd amount={account.held_usd} />
    </dd>
    {!account.unlimited && (
      <>
        <dt>Available</dt>
        <dd data-figure="available_usd">
          <Usd amount={account.available_usd} />
        </dd>
      </>
    )}
    <BudgetFacts budget={account} />
  </dl>
);
