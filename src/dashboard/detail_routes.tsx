/**
 * The pages of one key, account, model, channel and request (`/admin/keys/{id}`,
 * `/admin/accounts/{name}`, `/admin/models/{name}`, `/admin/channels/{name}`,
 * `/admin/requests/{id}`) and a channel's "test now"; each page's
 * range, usage and recent requests come from the admin service as the overview's do.
 */
import type { Hono } from "hono";
import { knownModels } from "../admin/model_warnings.ts";
import type { AdminEnv } from "../api/admin_access.ts";
import { AccountPage, type AccountPageProps } from "./account_page.tsx";
import { ChannelPage, type ChannelPageProps } from "./channel_page.tsx";
import { given, readForm } from "./forms.ts";
import { KeyPage, type KeyPageProps } from "./key_page.tsx";
import { ModelPage } from "./model_page.tsx";
import { RequestPage } from "./request_page.tsx";
import {
  attempt,
  type DashboardDeps,
  doneMessage,
  type PageContext,
  recentOf,
  render,
  zoneOf,
} from "./page_kit.tsx";
import { loadUsageView, rangeOf, type UsageScope } from "./usage_range.ts";

/** What a page adds after an action (a refusal, a warning), beside its own figures. */
type After<P> = Partial<Omit<P, "caller">>;

/** Adds the pages to `pages`; returns the renderers of a key's and an account's page after an action. */
export function detailRoutes(pages: Hono<AdminEnv>, deps: DashboardDeps) {
  const { service } = deps;
  const principal = (c: PageContext) => c.get("caller")!.principal;
  /** The page's usage over the range its query asks for, and the range's refusal if any. */
  const usageOf = async (c: PageContext, scope: UsageScope) => {
    const { range, error } = rangeOf(new URL(c.req.url).searchParams, deps.now(), zoneOf(c));
    const [view, refused] = await attempt(() => loadUsageView(service, range, scope));
    return { view, error: refused ?? error };
  };

  const keyPage = async (c: PageContext, id: string, extra: After<KeyPageProps>, status = 200) => {
    const key = await service.keys.get(id);
    const { config } = c.var.snapshot;
    const [usage, recent] = await Promise.all([
      usageOf(c, { key: id }),
      recentOf(service, { key: id }),
    ]);
    return render(
      c,
      <KeyPage
        caller={principal(c)}
        keyJson={key}
        groups={Object.keys(config.groups)}
        models={knownModels(config)}
        view={usage.view}
        recent={recent}
        error={usage.error}
        now={deps.now()}
        {...extra}
      />,
      status,
    );
  };
  pages.get("/keys/:id", (c) => keyPage(c, c.req.param("id"), { done: doneMessage(c) }));

  const accountPage = async (
    c: PageContext,
    name: string,
    extra: After<AccountPageProps>,
    status = 200,
  ) => {
    const account = await service.accounts.get(name);
    const [keys, usage, recent] = await Promise.all([
      service.keys.list({ account: name }),
      usageOf(c, { account: name }),
      recentOf(service, { account: name }),
    ]);
    return render(
      c,
      <AccountPage
        caller={principal(c)}
        account={account}
        keys={keys}
        view={usage.view}
        recent={recent}
        error={usage.error}
        now={deps.now()}
        {...extra}
      />,
      status,
    );
  };
  pages.get(
    "/accounts/:name",
    (c) => accountPage(c, c.req.param("name"), { done: doneMessage(c) }),
  );

  pages.get("/models/:name", async (c) => {
    const name = c.req.param("name");
    const [keys, usage, recent] = await Promise.all([
      service.keys.list(),
      usageOf(c, { model: name }),
      recentOf(service, { model: name }),
    ]);
    return render(
      c,
      <ModelPage
        caller={principal(c)}
        name={name}
        config={c.var.snapshot.config}
        keys={keys}
        view={usage.view}
        recent={recent}
        error={usage.error}
      />,
    );
  });

  const channelPage = async (
    c: PageContext,
    name: string,
    extra: After<ChannelPageProps>,
    status = 200,
  ) => {
    const channel = await service.channel(name);
    const config = c.var.snapshot.config.channels.find((item) => item.name === name)!;
    return render(
      c,
      <ChannelPage
        caller={principal(c)}
        channel={channel}
        config={config}
        now={deps.now()}
        {...extra}
      />,
      status,
    );
  };
  pages.get("/channels/:name", (c) => channelPage(c, c.req.param("name"), {}));
  pages.post("/channels/:name/test", async (c) => {
    const name = c.req.param("name");
    const form = await readForm(c, deps.clock);
    const [check, error, status] = await attempt(() =>
      service.checkChannel(name, given(form, "model"))
    );
    return await channelPage(c, name, { check, error }, status);
  });

  pages.get("/requests/:id", async (c) => {
    const request = await service.requireRequest(c.req.param("id"));
    const keyName = request.key_id === null
      ? undefined
      : (await attempt(() => service.keys.get(request.key_id!)))[0]?.name;
    return render(c, <RequestPage caller={principal(c)} request={request} keyName={keyName} />);
  });

  return {
    keyPageAfter: keyPage,
    accountPageAfter: accountPage,
  };
}
