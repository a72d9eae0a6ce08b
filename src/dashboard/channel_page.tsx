/**
 * A channel's page (`/admin/channels/{name}`): its state and what it means, its figures
 * over the last hour and day on every node, its last day by hour, this node's own view
 * (cool-down, what it measured since it started), what the config says of it (never its
 * keys), and "test now" with the answer or error of the last test made from here.
 */
import type { FC } from "hono/jsx";
import type { ChannelCheckJson } from "../admin/channel_check.ts";
import type { ChannelDetailJson, ChannelJson } from "../admin/channels.ts";
import type { Principal } from "../auth/principal.ts";
import type { ChannelConfig } from "../config/schema.ts";
import { StackedBars } from "./chart.tsx";
import { channelMeaning, ChannelState, LastError, successRate, TestButton } from "./channels.tsx";
import { ModelLink, Time, useZone } from "./figures.tsx";
import { count, duration } from "./format.ts";
import { Layout, Notice } from "./layout.tsx";

/** What a channel's page shows. */
export interface ChannelPageProps {
  caller: Principal;
  channel: ChannelDetailJson;
  config: ChannelConfig;
  /** The test just made from this page. */
  check?: ChannelCheckJson;
  error?: string;
  now: number;
}

/** The figures' windows: their fields' suffix and their words. */
const WINDOWS = [["1h", "last hour"], ["24h", "last day"]] as const;

/** A channel's page. */
export const ChannelPage: FC<ChannelPageProps> = (
  { caller, channel, config, check, error, now },
) => {
  const zone = useZone();
  const series = channel.series_24h;
  return (
    <Layout title={channel.name} caller={caller} page="channels">
      <p class="crumbs">
        <a href="/admin/channels">Channels</a> /
      </p>
      <h1 data-channel={channel.name}>
        {channel.name} <ChannelState channel={channel} now={now} />
      </h1>
      <Notice error={error} />
      <p class="muted" data-meaning>{channelMeaning(channel, now, zone)}</p>
      {check && <CheckResult check={check} />}
      <section class="panel" aria-label="Test">
        <TestButton name={channel.name} />
        <p class="muted">
          Sends one small request ("Reply with the word ok.", 16 tokens at most) to model{" "}
          {config.models[0]}{" "}
          with the channel's first key. Nothing is billed or counted, and routing is left as it is.
        </p>
      </section>
      <dl class="stats">
        {WINDOWS.flatMap(([window, words]) => {
          const figure = (name: string) => channel[`${name}_${window}` as keyof ChannelJson];
          return [
            ["requests", `Requests, ${words}`, count(figure("requests") as number)],
            ["errors", `Errors, ${words}`, count(figure("errors") as number)],
            [
              "success",
              `Success, ${words}`,
              successRate(figure("ok") as number, figure("errors") as number),
            ],
            [
              "p50_ttfb_ms",
              `First byte, ${words} (median)`,
              duration(figure("p50_ttfb_ms") as number | null),
            ],
          ].map(([name, label, value]) => (
            <div class="stat" data-figure={`${name}_${window}`}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ));
        })}
      </dl>
      <StackedBars
        times={series.map((point) => Date.parse(point.t))}
        stacks={[
          { label: "served", values: series.map((point) => point.ok), tone: "good" },
          { label: "failed", values: series.map((point) => point.errors), tone: "bad" },
          {
            label: "other (the client's fault, or it left)",
            values: series.map((point) => point.requests - point.ok - point.errors),
            tone: "muted",
          },
        ]}
        format={count}
        when={(t) => zone.dateTime(t)}
        tick={(t) => zone.clock(t)}
        per="hour"
        by="By outcome"
        whole
        label="Attempts per hour, last day, every node"
      />
      <section class="panel" aria-label="Details">
        <dl class="fields">
          <dt>Last error</dt>
          <dd data-last-error>
            <LastError channel={channel} />
          </dd>
          <dt>Last served</dt>
          <dd>
            <Time at={channel.last_ok_at} />
          </dd>
          <dt>This node</dt>
          <dd data-node-state>
            {channel.node_state.replaceAll("_", " ")}
            {channel.cooling_until && (
              <>
                {", cool-down until "}
                <Time at={channel.cooling_until} />
              </>
            )}; since it started: {count(channel.requests)} attempts, {count(channel.errors)}{" "}
            failed, median {duration(channel.p50_ms)}
          </dd>
          <dt>Protocol</dt>
          <dd>{config.protocol}</dd>
          <dt>URL</dt>
          <dd>
            <code>{config.base_url ?? "built in"}</code>
          </dd>
          <dt>Models</dt>
          <dd>
            {config.models.map((model, index) => (
              <>
                {index > 0 && ", "}
                <ModelLink name={model} />
                {config.model_map[model] && ` (sent as ${config.model_map[model]})`}
              </>
            ))}
          </dd>
          <dt>Groups</dt>
          <dd>{config.groups.join(", ")}</dd>
          <dt>Priority</dt>
          <dd>
            {config.priority}, weight {config.weight}
          </dd>
          <dt>Keys</dt>
          <dd>{config.keys.length}</dd>
        </dl>
      </section>
    </Layout>
  );
};

/** What the test found: the answer, or the error, with its status and times. */
const CheckResult: FC<{ check: ChannelCheckJson }> = ({ check }) => (
  <section
    class={`notice ${check.ok ? "done" : "error"}`}
    role="status"
    aria-label="Test result"
    data-check={check.ok ? "ok" : "failed"}
  >
    <strong>
      {check.ok ? "The channel answered" : "The test failed"}
      {check.status !== null && ` (HTTP ${check.status})`} in {duration(check.duration_ms)}
      {check.ttfb_ms !== null && `, first byte after ${duration(check.ttfb_ms)}`}.
    </strong>
    <div>
      Model {check.model}
      {check.upstream_model !== check.model && ` (sent as ${check.upstream_model})`}
      {check.key !== null && `, key ${check.key}`}
      {check.input_tokens !== null &&
        `, ${count(check.input_tokens)} input and ${
          count(check.output_tokens ?? 0)
        } output tokens`}.
    </div>
    {check.ok
      ? <blockquote data-answer>{check.answer || "(an empty answer)"}</blockquote>
      : <p data-error>{check.error}</p>}
  </section>
);
