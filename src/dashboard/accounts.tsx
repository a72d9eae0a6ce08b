/** The accounts page: balances and holds, top-up, enable and disable, a new account. */
import type { FC } from "hono/jsx";
import type { AccountJson } from "../admin/accounts.ts";
import type { Principal } from "../auth/principal.ts";
import { usd } from "./format.ts";
import { TextField } from "./keys.tsx";
import { Layout, Notice } from "./layout.tsx";
import { BudgetFacts, BudgetFields, budgetValue } from "./budget_view.tsx";

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
      {accounts.map((account) => {
        const action = `/admin/accounts/${encodeURIComponent(account.name)}`;
        return (
          <li class="card" data-account={account.name}>
            <h3>
              {account.name} {account.enabled
                ? <span class="badge good">enabled</span>
                : <span class="badge warn">disabled</span>}
            </h3>
            <dl class="fields">
              <dt>Balance</dt>
              <dd data-figure="balance_usd">
                {account.unlimited ? "unlimited" : usd(account.balance_usd)}
              </dd>
              <dt>Held now</dt>
              <dd data-figure="held_usd">{usd(account.held_usd)}</dd>
              {!account.unlimited && (
                <>
                  <dt>Available</dt>
                  <dd data-figure="available_usd">{usd(account.available_usd)}</dd>
                </>
              )}
              <BudgetFacts budget={account} />
            </dl>
            <div class="actions">
              <form method="post" action={action} aria-label={`Top up or adjust ${account.name}`}>
                <input
                  type="text"
                  name="usd"
                  inputmode="decimal"
                  placeholder="USD (-5 to refund)"
                  aria-label="Amount in USD"
                  required
                />
                <input type="text" name="reason" placeholder="reason" aria-label="Reason" />
                {!account.unlimited && (
                  <button type="submit" name="action" value="topup">Top up</button>
                )}
                <button type="submit" name="action" value="adjust" class="plain">Adjust</button>
              </form>
              <a class="plain" href={`/admin/accounts/${encodeURIComponent(account.name)}/history`}>
                History
              </a>
              <form method="post" action={action}>
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
                  : (
                    <button type="submit" name="action" value="enable" class="plain">Enable</button>
                  )}
              </form>
            </div>
            <details>
              <summary>Budget</summary>
              <form
                method="post"
                action={action}
                class="grid"
                aria-label={`Budget of ${account.name}`}
              >
                <input type="hidden" name="action" value="budget" />
                <BudgetFields values={budgetValue(account)} />
                <button type="submit">Save budget</button>
              </form>
            </details>
          </li>
        );
      })}
    </ul>
  </Layout>
);
