/** The accounts page: balances and holds, top-up, enable and disable, a new account. */
import type { FC } from "hono/jsx";
import type { AccountJson } from "../admin/accounts.ts";
import type { Principal } from "../auth/principal.ts";
import { AccountLink, pageOf } from "./figures.tsx";
import { TextField } from "./keys.tsx";
import { Layout, Notice } from "./layout.tsx";
import { AccountFigures } from "./own_key.tsx";
import { BudgetFields, budgetValue } from "./budget_view.tsx";

/** What the accounts page shows. */
export interface AccountsPageProps {
  caller: Principal;
  accounts: AccountJson[];
  /** The create form's values after a refusal. */
  values?: Record<string, string>;
  error?: string;
  done?: string;
}

/** The accounts page. */
export const AccountsPage: FC<AccountsPageProps> = (
  { caller, accounts, values = {}, error, done },
) => (
  <Layout title="Accounts" caller={caller} page="accounts">
    <h1>Accounts</h1>
    <Notice error={error} done={done} />
    <details class="panel" open={accounts.length <= 1 || values.name !== undefined}>
      <summary>Create an account</summary>
      <form method="post" action="/admin/accounts" class="grid" aria-label="Create an account">
        <TextField label="Name" name="name" value={values.name} required />
        <TextField
          label="Starting balance (USD)"
          name="balance_usd"
          value={values.balance_usd}
          placeholder="0"
          numeric="decimal"
        />
        <label class="check">
          <input type="checkbox" name="unlimited" checked={values.unlimited === "on"} />{" "}
          Unlimited (never charged)
        </label>
        <BudgetFields values={values} />
        <button type="submit">Create account</button>
      </form>
    </details>
    <ul class="cards">
      {accounts.map((account) => (
        <li class="card" data-account={account.name}>
          <h3>
            <AccountLink name={account.name} /> <AccountState account={account} />
          </h3>
          <AccountFigures account={account} />
          <AccountActions account={account} back="list" />
          <AccountBudgetForm account={account} back="list" />
        </li>
      ))}
    </ul>
  </Layout>
);

/** An account's state as a badge. */
export const AccountState: FC<{ account: AccountJson }> = ({ account }) =>
  account.enabled
    ? <span class="badge good">enabled</span>
    : <span class="badge warn">disabled</span>;

/** The account's budget as a form (in a fold); `back` names the page the answer returns to. */
export const AccountBudgetForm: FC<{ account: AccountJson; back: "list" | "page" }> = (
  { account, back },
) => (
  <details>
    <summary>Budget</summary>
    <form
      method="post"
      action={pageOf("accounts", account.name)}
      class="grid"
      aria-label={`Budget of ${account.name}`}
    >
      <input type="hidden" name="action" value="budget" />
      <input type="hidden" name="back" value={back} />
      <BudgetFields values={budgetValue(account)} />
      <button type="submit">Save budget</button>
    </form>
  </details>
);

/**
 * Top up (a prepaid account) or adjust with a reason, the account's history, disable or
 * enable; `back` names the page the answer returns to.
 */
export const AccountActions: FC<{ account: AccountJson; back: "list" | "page" }> = (
  { account, back },
) => {
  const action = pageOf("accounts", account.name);
  return (
    <div class="actions">
      <form method="post" action={action} aria-label={`Top up or adjust ${account.name}`}>
        <input type="hidden" name="back" value={back} />
        <input
          type="text"
          name="usd"
          inputmode="decimal"
          placeholder="USD (-5 to refund)"
          aria-label="Amount in USD"
          required
        />
        <input type="text" name="reason" placeholder="reason" aria-label="Reason" />
        {!account.unlimited && <button type="submit" name="action" value="topup">Top up</button>}
        <button type="submit" name="action" value="adjust" class="plain">Adjust</button>
      </form>
      <a class="plain" href={`${action}/history`}>History</a>
      <form method="post" action={action}>
        <input type="hidden" name="back" value={back} />
        {account.enabled
          ? (
            <button
              type="submit"
              name="action"
              value="disable"
              class="plain"
              data-confirm={`Disable account ${account.name}? Its keys stop working.`}
            >
              Disable
            </button>
          )
          : <button type="submit" name="action" value="enable" class="plain">Enable</button>}
      </form>
    </div>
  );
};
