/**
 * The admin service for a serving process, its modules loaded at its first call: they bring
 * the query builder, a sizeable share of an idle process's memory, which a gateway on a
 * SQLite file otherwise never loads (tests/lazy_packages_test.ts).
 */
import type { AccountAdmin } from "./accounts.ts";
import type { AdminDeps } from "./deps.ts";
import type { KeyAdmin } from "./keys.ts";
import type { AdminService } from "./service.ts";

/** An admin service over `deps` that loads the real one when first called. */
export function lazyAdminService(deps: AdminDeps): AdminService {
  let loaded: Promise<AdminService> | undefined;
  const service = () =>
    loaded ??= import("./service.ts").then((module) => module.createAdminService(deps));
  /** `method` of the loaded service, called with the arguments given. */
  const later =
    <A extends unknown[], R>(method: (service: AdminService) => (...args: A) => R) =>
    async (...args: A): Promise<Awaited<R>> => await method(await service())(...args);
  const accounts: AccountAdmin = {
    list: later((s) => s.accounts.list),
    get: later((s) => s.accounts.get),
    create: later((s) => s.accounts.create),
    topUp: later((s) => s.accounts.topUp),
    adjust: later((s) => s.accounts.adjust),
    history: later((s) => s.accounts.history),
    update: later((s) => s.accounts.update),
  };
  const keys: KeyAdmin = {
    list: later((s) => s.keys.list),
    get: later((s) => s.keys.get),
    create: later((s) => s.keys.create),
    update: later((s) => s.keys.update),
    revoke: later((s) => s.keys.revoke),
  };
  return {
    accounts,
    keys,
    alerts: { list: later((s) => s.alerts.list), test: later((s) => s.alerts.test) },
    usage: later((s) => s.usage),
    latency: later((s) => s.latency),
    refused: later((s) => s.refused),
    requests: later((s) => s.requests),
    request: later((s) => s.request),
    requireRequest: later((s) => s.requireRequest),
    me: later((s) => s.me),
    channels: later((s) => s.channels),
    channel: later((s) => s.channel),
    checkChannel: later((s) => s.checkChannel),
  };
}
