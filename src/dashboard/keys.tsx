/** The keys page: create a key (its secret shown once), and change, disable or revoke one. */
import type { Child, FC } from "hono/jsx";
import type { AccountJson } from "../admin/accounts.ts";
import type { CreatedKeyJson, KeyJson } from "../admin/keys.ts";
import type { Principal } from "../auth/principal.ts";
import { count, time } from "./format.ts";
import { Layout, Notice } from "./layout.tsx";
import { BudgetFacts, BudgetFields, budgetValue } from "./budget_view.tsx";

/** What the keys page shows. */
export interface KeysPageProps {
  caller: Principal;
  keys: KeyJson[];
  accounts: AccountJson[];
  groups: string[];
  /** A key just made: the only time its secret is shown. */
  created?: CreatedKeyJson;
  /** The create form's values after a refusal, to fix rather than type again. */
  values?: Record<string, string>;
  error?: string;
  done?: string;
  now: number;
}

/** A key's state as a badge. */
export const KeyState: FC<{ keyJson: KeyJson; now: number }> = ({ keyJson: key, now }) => {
  if (key.revoked) return <span class="badge bad">revoked</span>;
  if (!key.enabled) return <span class="badge warn">disabled</span>;
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now) {
    return <span class="badge warn">expired</span>;
  }
  return <span class="badge good">enabled</span>;
};

/** The keys page. */
export const KeysPage: FC<KeysPageProps> = (props) => {
  const { caller, keys, created, error, done } = props;
  return (
    <Layout title="Keys" caller={caller} page="keys">
      <h1>Keys</h1>
      <Notice error={error} done={done} />
      {created && (
        <section class="notice done" aria-label="New key">
          <strong>Key {created.id} created for account {created.account}.</strong>
          <div class="secret">
            <code id="new-secret" data-secret>{created.key}</code>
            <button type="button" class="plain" data-copy="new-secret">Copy</button>
          </div>
          This secret is shown only this once: only its hash is stored. Copy it now.
        </section>
      )}
      <details class="panel" open={keys.length <= 1 || props.values !== undefined}>
        <summary>Create a key</summary>
        <CreateKeyForm {...props} />
      </details>
      <ul class="cards">
        {keys.map((key) => <KeyCard keyJson={key} groups={props.groups} now={props.now} />)}
      </ul>
    </Layout>
  );
};

/** A labelled text field of a form. */
export const TextField: FC<{
  label: string;
  name: string;
  value?: string;
  placeholder?: string;
  numeric?: "numeric" | "decimal";
  required?: boolean;
}> = ({ label, name, value, placeholder, numeric, required }) => (
  <label>
    {label}
    <input
      type="text"
      name={name}
      value={value}
      placeholder={placeholder}
      inputmode={numeric}
      required={required}
    />
  </label>
);

/**
 * The fields of a key's form, as the admin API names them: `values` fills them (a refused
 * form's, or the key's own when editing).
 */
const KeyFields: FC<{ groups: string[]; values: Record<string, string> }> = (
  { groups, values },
) => (
  <>
    <label>
      Group
      <select name="group">
        {groups.map((group) => (
          <option value={group} selected={group === (values.group ?? "default")}>{group}</option>
        ))}
      </select>
    </label>
    <TextField label="Name" name="name" value={values.name} placeholder="what it is for" />
    <TextField
      label="Token quota"
      name="quota_tokens"
      value={values.quota_tokens}
      placeholder="none"
      numeric="numeric"
    />
    <TextField label="Expires" name="expires_at" value={values.expires_at} placeholder="never" />
    <TextField label="Models" name="models" value={values.models} placeholder="all (or m1, m2)" />
    <TextField
      label="Allowed IPs"
      name="allow_ips"
      value={values.allow_ips}
      placeholder="any (or CIDRs)"
    />
    <BudgetFields values={values} />
    <label class="check">
      <input type="checkbox" name="admin" checked={values.admin === "on"} /> Admin key
    </label>
  </>
);

const CreateKeyForm: FC<KeysPageProps> = ({ accounts, groups, values = {} }) => (
  <form method="post" action="/admin/keys" class="grid" aria-label="Create a key">
    <label>
      Account
      <select name="account" required>
        {accounts.map((account) => (
          <option value={account.name} selected={values.account === account.name}>
            {account.name}
          </option>
        ))}
      </select>
    </label>
    <KeyFields groups={groups} values={values} />
    <button type="submit">Create key</button>
  </form>
);

/** A key's form values: what its edit form starts from. */
function valuesOf(key: KeyJson): Record<string, string> {
  return {
    group: key.group,
    name: key.name ?? "",
    quota_tokens: key.quota_tokens === null ? "" : String(key.quota_tokens),
    expires_at: key.expires_at ?? "",
    models: key.models?.join(", ") ?? "",
    allow_ips: key.allow_ips?.join(", ") ?? "",
    admin: key.admin ? "on" : "",
    ...budgetValue(key),
  };
}

/** What a key is and how it is limited, as a list of facts; `children` adds more. */
export const KeyFacts: FC<{ keyJson: KeyJson; now: number; children?: Child }> = (
  { keyJson: key, now, children },
) => (
  <dl class="fields">
    <dt>Id</dt>
    <dd>
      <code>{key.id}</code> (<code>{key.prefix}…</code>)
    </dd>
    <dt>State</dt>
    <dd>
      <KeyState keyJson={key} now={now} />
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
    <BudgetFacts budget={key} />
    {children}
  </dl>
);

const KeyCard: FC<{ keyJson: KeyJson; groups: string[]; now: number }> = (
  { keyJson: key, groups, now },
) => {
  const action = `/admin/keys/${encodeURIComponent(key.id)}`;
  return (
    <li class="card" data-key={key.id}>
      <h3>
        {key.name ?? key.id} {key.admin && <span class="badge">admin</span>}
      </h3>
      <KeyFacts keyJson={key} now={now}>
        <dt>Account</dt>
        <dd>{key.account}</dd>
        <dt>Last used</dt>
        <dd>{time(key.last_used_at)}</dd>
      </KeyFacts>
      {!key.revoked && (
        <>
          <form method="post" action={action} class="actions">
            {key.enabled
              ? <button type="submit" name="action" value="disable" class="plain">Disable</button>
              : <button type="submit" name="action" value="enable" class="plain">Enable</button>}
            <button
              type="submit"
              name="action"
              value="revoke"
              class="danger"
              data-confirm={`Revoke key ${key.id} for good? It can never be used again.`}
            >
              Revoke
            </button>
          </form>
          <details>
            <summary>Edit</summary>
            <form method="post" action={action} class="grid" aria-label={`Edit ${key.id}`}>
              <input type="hidden" name="action" value="update" />
              <KeyFields groups={groups} values={valuesOf(key)} />
              <button type="submit">Save</button>
            </form>
          </details>
        </>
      )}
    </li>
  );
};
