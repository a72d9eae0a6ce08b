/** The channels page: each channel's state and what this node measured of it. */
import type { FC } from "hono/jsx";
import type { ChannelJson } from "../admin/channels.ts";
import type { Principal } from "../auth/principal.ts";
import { count, duration, percent, time } from "./format.ts";
import { Layout } from "./layout.tsx";

const STATE_BADGE: Record<string, string> = {
  up: "good",
  cooling: "warn",
  no_usable_key: "bad",
};

/** The channels page. */
export const ChannelsPage: FC<{ caller: Principal; channels: ChannelJson[] }> = (
  { caller, channels },
) => (
  <Layout title="Channels" caller={caller} page="channels">
    <h1>Channels</h1>
    <p class="muted">
      What this gateway process measured since it started (each node of a shared database answers
      for itself): attempts sent to each channel, those that failed, and the median time of its
      recent requests.
    </p>
    <div class="table-frame">
      <table>
        <thead>
          <tr>
            <th>Channel</th>
            <th>Protocol</th>
            <th>State</th>
            <th class="num">Requests</th>
            <th class="num">Errors</th>
            <th class="num">Success</th>
            <th class="num">p50</th>
            <th>Last error</th>
          </tr>
        </thead>
        <tbody>
          {channels.map((channel) => (
            <tr data-channel={channel.name}>
              <td>{channel.name}</td>
              <td>{channel.protocol}</td>
              <td>
                <span class={`badge ${STATE_BADGE[channel.state] ?? ""}`} data-state>
                  {channel.state.replaceAll("_", " ")}
                </span>
              </td>
              <td class="num">{count(channel.requests)}</td>
              <td class="num" data-errors>{count(channel.errors)}</td>
              <td class="num">
                {percent(channel.requests - channel.errors, channel.requests)}
              </td>
              <td class="num">{duration(channel.p50_ms)}</td>
              <td class="wrap" data-last-error>
                {channel.last_error === null
                  ? "–"
                  : `${time(channel.last_error_at)}: ${channel.last_error}`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </Layout>
);
