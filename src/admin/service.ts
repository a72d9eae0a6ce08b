/**
 * The admin service: accounts, keys, usage, requests and channel health, for the CLI, the
 * admin API and the dashboard alike. Its inputs carry the names of the CLI's flags and the
 * API's fields; its outputs are the CLI's `--json` shapes; its failures are GatewayErrors
 * (errors.ts) that the API renders and the CLI prints as one line.
 */
import { type AccountAdmin, accountAdmin, type AccountJson } from "./accounts.ts";
import { type ChannelCheckJson, checkChannel } from "./channel_check.ts";
import {
  channelDetail,
  type ChannelDetailJson,
  channelHealth,
  type ChannelJson,
} from "./channels.ts";
import { type AlertAdmin, alertAdmin } from "./alerts.ts";
import type { AdminDeps } from "./deps.ts";
import { type KeyAdmin, keyAdmin, type KeyJson } from "./keys.ts";
import { type LatencyJson, latencyReport } from "./latency.ts";
import {
  findRequest,
  listRequests,
  refusedCount,
  type RequestDetailJson,
  type RequestJson,
  type RequestsQuery,
  requireRequest,
} from "./requests.ts";
import { type UsageQuery, type UsageReport, usageReport } from "./usage.ts";

/** What a key sees of itself (`GET /admin/api/me`): the key, its account, its usage. */
export interface MeJson {
  key: KeyJson;
  account: AccountJson;
  usage: UsageReport;
}

/** The admin operations. */
export interface AdminService {
  accounts: AccountAdmin;
  keys: KeyAdmin;
  /** Alert events and their deliveries; a test event. */
  alerts: AlertAdmin;
  /** Usage totals and rows (and a series when `bucket` is given). */
  usage(query: UsageQuery): Promise<UsageReport>;
  /** The median duration of the requests of a range (the dashboard's overview). */
  latency(query: UsageQuery): Promise<LatencyJson>;
  /** How many requests were refused over a range (no ledger row; the overview's figure). */
  refused(query: UsageQuery): Promise<number>;
  /** Requests, newest first, a page at a time. */
  requests(query: RequestsQuery): Promise<RequestJson[]>;
  /** One request in full, with its upstream attempts; undefined when there is none. */
  request(id: string): Promise<RequestDetailJson | undefined>;
  /** One request in full, as `request`; 404 when there is none. */
  requireRequest(id: string): Promise<RequestDetailJson>;
  /** The config's channels with their health: every node's last hour and day, this process's state. */
  channels(): Promise<ChannelJson[]>;
  /** One channel with its last day by hour; 404 when the config has none of that name. */
  channel(name: string): Promise<ChannelDetailJson>;
  /** Sends one small request through a channel (a serving process only): its answer or error. */
  checkChannel(name: string, model?: string): Promise<ChannelCheckJson>;
  /** A key's own record, its account and its usage (the query's key and account are its own). */
  me(keyId: string, query?: Omit<UsageQuery, "key" | "account">): Promise<MeJson>;
}

/** The admin service over its dependencies. */
export function createAdminService(deps: AdminDeps): AdminService {
  const accounts = accountAdmin(deps);
  const keys = keyAdmin(deps);
  const usage = (query: UsageQuery) => usageReport(deps, query);
  return {
    accounts,
    keys,
    alerts: alertAdmin(deps),
    usage,
    latency: (query) => latencyReport(deps, query),
    refused: (query) => refusedCount(deps, query),
    requests: (query) => listRequests(deps, query),
    request: (id) => findRequest(deps, id),
    requireRequest: (id) => requireRequest(deps, id),
    channels: () => channelHealth(deps),
    channel: (name) => channelDetail(deps, name),
    checkChannel: (name, model) => checkChannel(deps, deps.upstream, name, model),
    async me(keyId, query = {}) {
      const key = await keys.get(keyId);
      const { model, since, until, bucket } = query;
      return {
        key,
        account: await accounts.get(key.account),
        usage: await usage({ model, since, until, bucket, key: key.id }),
      };
    },
  };
}
