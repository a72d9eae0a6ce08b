/**
 * A key's page (`/admin/keys/{id}`): what it is and how it is limited, its account, the
 * form that changes it, disable, enable and revoke; its usage over a range, and its recent
 * requests and failures.
 */
import type { FC } from "hono/jsx";
import type { KeyJson } from "../admin/keys.ts";
import type { Principal } from "../auth/principal.ts";
import { AccountLink, pageOf, Time } from "./figures.tsx";
import { KeyActions, KeyFacts, KeyFields, KeyState, valuesOf } from "./keys.tsx";
import { Layout, Notice } from "./layout.tsx";
import { type Recent, RecentRequests } from "./recent.tsx";
import type { UsageView } from "./usage_range.ts";
import { ByModelTable, RangeForm, Totals, UsageChart } from "./usage_view.tsx";

/** What a key's page shows. */
export interface KeyPageProps {
  caller: Principal;
  keyJson: KeyJson;
  groups: string[];
  models: string[];
  view?: UsageView;
  recent: Recent;
  /** The edit form's values after a refusal. */
  values?: Record<string, string>;
  error?: string;
  done?: string;
  warnings?: string[];
  now: number;
}

/** A key's page. */
export const KeyPage: FC<KeyPageProps> = (props) => {
  const { caller, keyJson: key, view, now } = props;
  const names = new Map([[key.id, key.name]]);
  return (
    <Layout title={key.name ?? key.id} caller={caller} page="keys">
      <p class="crumbs">
        <a href="/admin/keys">Keys</a> /
      </p>
      <h1>
        {key.name ?? key.id} <KeyState keyJson={key} now={now} />{" "}
        {key.admin && <span class="badge">admin</span>}
      </h1>
      <Notice error={props.error} done={props.done} warnings={props.warnings} />
      <section class="panel" data-key={key.id} aria-label="The key">
        <KeyFacts keyJson={key} now={now}>
          <dt>Account</dt>
          <dd>
            <AccountLink name={key.account} />
          </dd>
          <dt>Created</dt>
          <dd>
            <Time at={key.created_at} />
          </dd>
          <dt>Last used</dt>
          <dd>
            <Time at={key.last_used_at} />
          </dd>
        </KeyFacts>
        <KeyActions keyJson={key} back="page" />
      </section>
      {!key.revoked && (
        <details class="panel" open={props.values !== undefined}>
          <summary>Edit</summary>
          <form
            method="post"
            action={pageOf("keys", key.id)}
            class="grid"
            aria-label={`Edit ${key.name ?? key.id}`}
          >
            <input type="hidden" name="action" value="update" />
            <input type="hidden" name="back" value="page" />
            <KeyFields
              groups={props.groups}
              models={props.models}
              values={props.values ?? valuesOf(key)}
            />
            <button type="submit">Save</button>
          </form>
        </details>
      )}
      {view && (
        <>
          <h2>Usage</h2>
          <RangeForm view={view} action={pageOf("keys", key.id)} />
          <Totals view={view} />
          <UsageChart view={view} />
          <ByModelTable view={view} linked />
        </>
      )}
      <RecentRequests recent={props.recent} filter={{ key: key.id }} names={names} />
    </Layout>
  );
};
