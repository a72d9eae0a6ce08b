/** What the admin service is built from: the database, the config, a clock, channel health. */
import type { Config } from "../config/schema.ts";
import type { NewRefusal, Queries } from "../db/schema.ts";
import type { ChannelStats } from "../observability/channel_stats.ts";
import type { Router } from "../routing/router.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import type { HttpClient } from "../upstream/http1/client.ts";
import type { Outbox } from "../alerts/outbox.ts";
import type { WebhookPost } from "../upstream/webhook_post.ts";

/** This process's view of its channels, which only a serving process has. */
export interface ChannelHealthSource {
  /** Whether each channel is tried now (routing/router.ts). */
  router: Pick<Router, "channelStates">;
  /** What this process measured of each channel (the metrics' `channels`). */
  stats: Pick<ChannelStats, "read">;
}

/** What a serving process lends a channel's test: its upstream client and a clock for deadlines. */
export interface ChannelCaller {
  client: HttpClient;
  clock: AlarmClock;
}

/** The admin service's dependencies; nothing else is kept between calls. */
export interface AdminDeps {
  /**
   * The query builder, asked for at each call: a serving process loads it only when the
   * admin API is first used (db/database.ts).
   */
  queries: () => Promise<Queries>;
  /** The config in force (groups, channels). */
  config: () => Config;
  /** The config file, named in messages about what it defines. */
  configPath?: string;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** A serving process's channel health; without it every channel's state is "unknown". */
  health?: ChannelHealthSource;
  /** A serving process's upstream client, for a channel's test; none elsewhere. */
  upstream?: ChannelCaller;
  /** The alerts' outbox and how webhooks are posted (`alerts list`, `alerts test`). */
  alerts?: { outbox: Outbox; post: WebhookPost };
  /** A serving process's refusal records not written yet (a lookup sees them at once). */
  pendingRefusals?: () => readonly NewRefusal[];
}
