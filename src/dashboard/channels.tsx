/**
 * The channels page: each channel's state and its figures over the last hour and day (every
 * node's attempts, from the channel rollup), its last error, and a "test now" control that
 * sends one small request through it (the channel's page shows the answer).
 */
import type { FC } from "hono/jsx";
import type { ChannelJson } from "../admin/channels.ts";
import type { Principal } from "../auth/principal.ts";
import { ChannelLink, pageOf, Time, useZone } from "./figures.tsx";
import { count, duration, percent } from "./format.ts";
import type { TimeZone } from "./time_zone.ts";
import { Layout } from "./layout.tsx";

const STATE_BADGE: Record<string, string> = {
  up: "good",
  failing: "bad",
  cooling: "warn",
  probing: "warn",
  no_usable_key: "bad",
};

/** What a channel's state means, in words. */
export function channelMeaning(channel: ChannelJson, now: number, zone: TimeZone): string {
  const until = channel.cooling_until ? Date.parse(channel.cooling_until) : undefined;
  switch (channel.state) {
    case "up":
      return "Its latest attempts served.";
    case "failing":
      return `Its latest attempt failed${
        channel.last_error_status ? ` (HTTP ${channel.last_error_status})` : ""
      }; it is still tried.`;
    case "cooling":
      return until && until > now
        ? `It failed repeatedly: this node tries it last until ${zone.clock(until)}, then one ` +
          "request probes it."
        : "Its cool-down is over: the next request to it probes it.";
    case "probing":
      return "One request is probing it after its cool-down.";
    case "no_usable_key":
      return "Every key was rejected (401/403) or is resting after a 429.";
    default:
      return "No gateway process reports on it.";
  }
}

/** A channel's state as a badge, what it means in its title. */
export const ChannelState: FC<{ channel: ChannelJson; now: number }> = ({ channel, now }) => (
  <span
    class={`badge ${STATE_BADGE[channel.state] ?? ""}`}
    data-state
    title={channelMeaning(channel, now, useZone())}
  >
    {channel.state.replaceAll("_", " ")}
  </span>
);

/** Served attempts among those that served or failed by the channel's fault. */
export function successRate(ok: number, errors: number): string {
  return percent(ok, ok + errors);
}

/** The "test now" control of a channel. */
export const TestButton: FC<{ name: string }> = ({ name }) => (
  <form method="post" action={`${pageOf("channels", name)}/test`} class="actions">
    <button type="submit" class="plain" aria-label={`Test ${name} now`}>Test now</button>
  </form>
);

/** The channels page. */
export const ChannelsPage: FC<{ caller: Principal; channels: ChannelJson[]; now: number }> = (
  { caller, channels, now },
) => (
  <Layout title="Channels" caller={caller} page="channels">
    <h1>Channels</h1>
    <p class="muted">
      Upstream attempts over the last hour and day, on every node of the database: requests sent,
      errors that were the channel's fault (not a client's bad request, not a client that left), the
      share that served, and the median time to the upstream's first byte. A channel is failing
      while its latest attempt failed; cooling and probing are this node's rest and retry of it.
    </p>
    <div class="table-frame">
      <table class="stack" aria-label="Channels">
        <thead>
          <tr>
            <th>Channel</th>
            <th>State</th>
            <th class="num">Requests 1h / 24h</th>
            <th class="num">Errors 1h / 24h</th>
            <th class="num">Success 1h / 24h</th>
            <th class="num">First byte 1h / 24h</th>
            <th>Last error</th>
            <th>Test</th>
          </tr>
        </thead>
        <tbody>
          {channels.map((channel) => (
            <tr data-channel={channel.name}>
              <td data-label="Channel" class="title">
                <ChannelLink name={channel.name} /> <small class="muted">{channel.protocol}</small>
              </td>
              <td data-label="State">
                <ChannelState channel={channel} now={now} />
              </td>
              <td class="num" data-label="Requests 1h / 24h">
                <Pair hour={count(channel.requests_1h)} day={count(channel.requests_24h)} />
              </td>
              <td class="num" data-label="Errors 1h / 24h" data-errors={channel.errors_1h}>
                <Pair hour={count(channel.errors_1h)} day={count(channel.errors_24h)} />
              </td>
              <td class="num" data-label="Success 1h / 24h">
                <Pair
                  hour={successRate(channel.ok_1h, channel.errors_1h)}
                  day={successRate(channel.ok_24h, channel.errors_24h)}
                />
              </td>
              <td class="num" data-label="First byte 1h / 24h">
                <Pair
                  hour={duration(channel.p50_ttfb_ms_1h)}
                  day={duration(channel.p50_ttfb_ms_24h)}
                />
              </td>
              <td class="wrap" data-label="Last error" data-last-error>
                <LastError channel={channel} />
              </td>
              <td data-label="Test">
                <TestButton name={channel.name} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </Layout>
);

/** A figure of the last hour, and of the last day after it, muted. */
const Pair: FC<{ hour: string; day: string }> = ({ hour, day }) => (
  <>
    <span data-hour>{hour}</span>{" "}
    <span class="muted">
      / <span data-day>{day}</span>
    </span>
  </>
);

/** A channel's last error: when, its status, and its reason; "–" when none. */
export const LastError: FC<{ channel: ChannelJson }> = ({ channel }) =>
  channel.last_error_at === null ? <>–</> : (
    <>
      <Time at={channel.last_error_at} />
      {channel.last_error_status !== null &&
        !channel.last_error?.includes(`HTTP ${channel.last_error_status}`) &&
        ` HTTP ${channel.last_error_status}`}
      {": "}
      {channel.last_error ?? "failed"}
    </>
  );
