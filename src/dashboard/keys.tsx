/**
 * The keys page: every key with its restrictions in view (models, addresses, expiry, quota),
 * searchable, revoked keys hidden unless asked for; create a key (its secret shown once),
 * disable, enable or revoke one. A key's own page (key_page.tsx) edits it.
 */
import type { Child, FC } from "hono/jsx";
import type { AccountJson } from "../admin/accounts.ts";
import type { CreatedKeyJson, KeyJson } from "../admin/keys.ts";
import type { Principal } from "../auth/principal.ts";
import { AccountLink, KeyLink, pageOf, Time } from "./figures.tsx";
import { count } from "./format.ts";
import { Layout, Notice } from "./layout.tsx";
import { BudgetCell, BudgetFacts, BudgetFields, budgetValue } from "./budget_view.tsx";

/** What the keys page shows. */
export interface KeysPageProps {
  caller: Principal;
  keys: KeyJson[];
  accounts: AccountJson[];
  groups: string[];
  /** The models a key may name (a datalist for the models field). */
  models: string[];
  /** The search (`q`) and whether revoked keys are shown (`revoked=show`). */
  search?: { q?: string; revoked?: string };
  /** A key just made: the only time its secret is shown. */
  created?: CreatedKeyJson;
  /** The create form's values after a refusal, to fix rather than type again. */
  values?: Record<string, string>;
  error?: string;
  done?: string;
  /** What will not work as asked (a model the config does not know). */
  warnings?: string[];
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

/** Whether a key matches a search: its name, id, prefix, account or group holds the words. */
export function matchesSearch(key: KeyJson, q: string | undefined): boolean {
  const words = (q ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  const text = [key.name ?? "", key.id, key.prefix, key.account, key.group].join(" ")
    .toLowerCase();
  return words.every((word) => text.includes(word));
}

/**
 * The columns of the keys table after the key's name: a header and a cell of a key. Budgets
 * (issue 43) add theirs here.
 */
export const KEY_COLUMNS: readonly {
  head: string;
  cell: (key: KeyJson, now: number) => Child;
}[] = [
  { head: "Account", cell: (key) => <AccountLink name={key.account} /> },
  { head: "State", cell: (key, now) => <KeyState keyJson={key} now={now} /> },
  { head: "Restrictions", cell: (key) => <Restrictions keyJson={key} /> },
  { head: "Quota", cell: (key) => quotaText(key) },
  { head: "Budget", cell: (key) => <BudgetCell budget={key} /> },
  { head: "Last used", cell: (key) => <Time at={key.last_used_at} /> },
];

/** What limits a key beyond its quota: its group, models, addresses and expiry, one a line. */
export const Restrictions: FC<{ keyJson: KeyJson }> = ({ keyJson: key }) => (
  <ul class="facts" data-restrictions>
    <li>group {key.group}</li>
    <li>{key.models === null ? "every model" : `models: ${key.models.join(", ")}`}</li>
    <li>{key.allow_ips === null ? "any address" : `from: ${key.allow_ips.join(", ")}`}</li>
    <li>
      {key.expires_at === null ? "never expires" : (
        <>
          expires <Time at={key.expires_at} />
        </>
      )}
    </li>
  </ul>
);

/** `1,234 of 100,000 tokens` or `1,234 tokens, no quota`. */
export function quotaText(key: KeyJson): string {
  return key.quota_tokens === null
    ? `${count(key.used_tokens)} tokens, no quota`
    : `${count(key.used_tokens)} of ${count(key.quota_tokens)} tokens`;
}

/** The keys page. */
export const KeysPage: FC<KeysPageProps> = (props) => {
  const { caller, keys, created, error, done, search = {} } = props;
  const showRevoked = search.revoked === "show";
  const found = keys.filter((key) => matchesSearch(key, search.q));
  const shown = found.filter((key) => showRevoked || !key.revoked);
  const hidden = found.length - shown.length;
  return (
    <Layout title="Keys" caller={caller} page="keys">
      <h1>Keys</h1>
      <Notice error={error} done={done} warnings={props.warnings} />
      {created && (
        <section class="notice done" aria-label="New key">
          <strong>
            Key {created.name ? `"${created.name}" (${created.id})` : created.id}{" "}
            created for account {created.account}.
          </strong>
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
      <form method="get" action="/admin/keys" class="search" role="search" aria-label="Find keys">
        <label>
          Find
          <input
            type="search"
            name="q"
            value={search.q}
            placeholder="name, id, account or group"
          />
        </label>
        <label class="check">
          <input type="checkbox" name="revoked" value="show" checked={showRevoked} data-submit />
          {" "}
          Show revoked keys
        </label>
        <button type="submit" class="plain">Find</button>
      </form>
      <p class="muted" data-count>
        {shown.length} of {keys.length} keys shown
        {hidden > 0 && `; ${hidden} revoked hidden`}.
      </p>
      <div class="table-frame">
        <table class="stack" aria-label="Keys">
          <thead>
            <tr>
              <th>Key</th>
              {KEY_COLUMNS.map((column) => <th>{column.head}</th>)}
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 && (
              <tr>
                <td colspan={KEY_COLUMNS.length + 2} class="muted">No key matches.</td>
              </tr>
            )}
            {shown.map((key) => (
              <tr data-key={key.id}>
                <td data-label="Key" class="title">
                  <KeyLink id={key.id} name={key.name} />{" "}
                  {key.admin && <span class="badge">admin</span>}
                  {key.name !== null && <code class="muted sub">{key.id}</code>}
                </td>
                {KEY_COLUMNS.map((column) => (
                  <td data-label={column.head} class="soft">{column.cell(key, props.now)}</td>
                ))}
                <td data-label="Actions">
                  <KeyActions keyJson={key} back="list" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Layout>
  );
};

/** Disable or enable, and revoke, a key; `back` says which page the answer returns to. */
export const KeyActions: FC<{ keyJson: KeyJson; back: "list" | "page" }> = (
  { keyJson: key, back },
) => {
  if (key.revoked) return <span class="muted">revoked for good</span>;
  const label = key.name ? `"${key.name}" (${key.id})` : key.id;
  return (
    <form method="post" action={pageOf("keys", key.id)} class="actions">
      <input type="hidden" name="back" value={back} />
      {key.enabled
        ? <button type="submit" name="action" value="disable" class="plain">Disable</button>
        : <button type="submit" name="action" value="enable" class="plain">Enable</button>}
      <button
        type="submit"
        name="action"
        value="revoke"
        class="danger"
        data-confirm={`Revoke key ${label} for good? It can never be used again.`}
      >
        Revoke
      </button>
      {back === "list" && <a href={pageOf("keys", key.id)}>Edit</a>}
    </form>
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
 * form's, or the key's own when editing). The models field suggests the config's models,
 * and the page's script says at once which names typed there it does not know.
 */
export const KeyFields: FC<{ groups: string[]; models: string[]; values: Record<string, string> }> =
  (
    { groups, models, values },
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
      <label>
        Models
        <input
          type="text"
          name="models"
          value={values.models}
          placeholder="all (or m1, m2)"
          list="known-models"
        />
        <small class="hint" data-models-hint aria-live="polite"></small>
      </label>
      <datalist id="known-models">
        {models.map((model) => <option value={model}></option>)}
      </datalist>
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

const CreateKeyForm: FC<KeysPageProps> = ({ accounts, groups, models, values = {} }) => (
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
    <KeyFields groups={groups} models={models} values={values} />
    <button type="submit">Create key</button>
  </form>
);

/** A key's form values: what its edit form starts from. */
export function valuesOf(key: KeyJson): Record<string, string> {
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
    <dd>{key.expires_at === null ? "never" : <Time at={key.expires_at} />}</dd>
    <dt>Models</dt>
    <dd>{key.models === null ? "all of its group's" : key.models.join(", ")}</dd>
    <dt>From</dt>
    <dd>{key.allow_ips === null ? "any address" : key.allow_ips.join(", ")}</dd>
    <BudgetFacts budget={key} />
    {children}
  </dl>
);
