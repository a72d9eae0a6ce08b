/**
 * A model's page (`/admin/models/{name}`): what the config says of it (prices, limits,
 * fallbacks, the channels that serve it, the aliases that lead to it), its usage over a
 * range (as served: a fallback's usage is its own), and its recent requests and failures
 * (as asked).
 */
import type { FC } from "hono/jsx";
import type { KeyJson } from "../admin/keys.ts";
import type { Principal } from "../auth/principal.ts";
import type { Config } from "../config/schema.ts";
import { ChannelLink, KeyLink, ModelLink, pageOf } from "./figures.tsx";
import { count } from "./format.ts";
import { Layout, Notice } from "./layout.tsx";
import { type Recent, RecentRequests } from "./recent.tsx";
import type { UsageView } from "./usage_range.ts";
import { FiguresTable, RangeForm, sumBy, Totals, UsageChart } from "./usage_view.tsx";

/** What a model's page shows. */
export interface ModelPageProps {
  caller: Principal;
  name: string;
  config: Config;
  keys: KeyJson[];
  view?: UsageView;
  recent: Recent;
  error?: string;
}

/** USD per million tokens, as the config gives it. */
const perMillion = (price: number | undefined) =>
  price === undefined ? "–" : `$${price} per million tokens`;

/** Links to each of `names`, separated by commas; "none" when there is none. */
const Links: FC<{ names: string[]; kind: "models" | "channels" }> = ({ names, kind }) =>
  names.length === 0 ? <>none</> : (
    <>
      {names.map((name, index) => (
        <>
          {index > 0 && ", "}
          {kind === "models" ? <ModelLink name={name} /> : <ChannelLink name={name} />}
        </>
      ))}
    </>
  );

/** A model's page. */
export const ModelPage: FC<ModelPageProps> = (props) => {
  const { caller, name, config, view } = props;
  const model = config.models[name];
  const channels = config.channels.filter((channel) => channel.models.includes(name));
  const aliases = Object.entries(config.models)
    .filter(([, other]) => other.fallbacks?.includes(name))
    .map(([alias]) => alias);
  const names = new Map(props.keys.map((key) => [key.id, key.name]));
  const known = model !== undefined || channels.length > 0;
  return (
    <Layout title={name} caller={caller} page="overview">
      <p class="crumbs">
        <a href="/admin">Overview</a> / models /
      </p>
      <h1>{name}</h1>
      <Notice
        error={props.error}
        warnings={known
          ? []
          : ["The config defines no such model now: what it served before is below."]}
      />
      <section class="panel" aria-label="The model">
        <dl class="fields">
          <dt>Channels</dt>
          <dd>
            <Links names={channels.map((channel) => channel.name)} kind="channels" />
          </dd>
          <dt>Fallbacks</dt>
          <dd>
            <Links names={model?.fallbacks ?? []} kind="models" />
          </dd>
          <dt>Fallback of</dt>
          <dd>
            <Links names={aliases} kind="models" />
          </dd>
          <dt>Input</dt>
          <dd>{perMillion(model?.input_price)}</dd>
          <dt>Output</dt>
          <dd>{perMillion(model?.output_price)}</dd>
          <dt>Cached input</dt>
          <dd>{perMillion(model?.cached_input_price ?? model?.input_price)}</dd>
          <dt>Context window</dt>
          <dd>{model?.context_window ? `${count(model.context_window)} tokens` : "–"}</dd>
          <dt>Limits</dt>
          <dd>
            {[
              model?.rpm && `${count(model.rpm)} requests a minute`,
              model?.tpm && `${count(model.tpm)} tokens a minute`,
            ].filter(Boolean).join(", ") || "none of its own"}
          </dd>
        </dl>
      </section>
      {view && (
        <>
          <h2>Usage</h2>
          <RangeForm view={view} action={pageOf("models", name)} />
          <Totals view={view} />
          <UsageChart view={view} />
          <h3>By key</h3>
          <FiguresTable
            caption="Usage by key over the range"
            head={["Key", "Account"]}
            rows={sumBy(view.report.rows, (row) => row.key_id).map(([id, figures]) => ({
              name: id,
              cells: [<KeyLink id={id} name={names.get(id)} />, figures.rows[0]!.account],
              figures,
            }))}
          />
        </>
      )}
      <RecentRequests recent={props.recent} filter={{ model: name }} names={names} />
    </Layout>
  );
};
