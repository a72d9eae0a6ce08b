/**
 * The dashboard's pages under /admin: sign-in and sign-out (sign_in_routes.tsx), then the
 * pages of design.md (an admin key's) or a key's own page. Each page calls the admin service as the CLI does;
 * a form's refusal is shown on its page with what was typed, and anything else that fails
 * is a page saying so, never a stack trace.
 */
import { type Context, Hono } from "hono";
import { DEFAULT_PAGE, MAX_PAGE } from "../admin/requests.ts";
import type { AdminService } from "../admin/service.ts";
import type { Sessions } from "../admin/sessions.ts";
import type { Authenticate } from "../auth/authenticate.ts";
import { optional, requestsQuery } from "../routes/admin_api_input.ts";
import { asGatewayError, GatewayError } from "../errors.ts";
import { describeError, type Logger } from "../log.ts";
import type { AlarmClock } from "../upstream/alarm_clock.ts";
import type { AdminEnv } from "../middleware/admin_access.ts";
import { AccountsPage } from "./accounts.tsx";
import { AlertsPage, HistoryPage } from "./alerts.tsx";
import { ChannelsPage } from "./channels.tsx";
import { accountOf, budgetOf, formValues, given, keyFieldsOf, readForm } from "./forms.ts";
import { KeysPage } from "./keys.tsx";
import { OverviewPage } from "./overview.tsx";
import { OwnKeyPage } from "./own_key.tsx";
import { RequestsPage } from "./requests.tsx";
import { ErrorPage } from "./sign_in.tsx";
import { signInRoutes } from "./sign_in_routes.tsx";
import { loadUsageView, rangeOf } from "./usage_range.ts";

/** What the pages are built from. */
export interface DashboardDeps {
  service: AdminService;
  sessions: Sessions;
  authenticate: Authenticate;
  log: Logger;
  now: () => number;
  /** The app's timer, for the deadline of a form's body. */
  clock: AlarmClock;
}

/** What a finished action says on the page it returns to, by `?done=`. */
const DONE: Record<string, (name: string) => string> = {
  disable: (id) => `Key ${id} is disabled.`,
  enable: (id) => `Key ${id} is enabled.`,
  revoke: (id) => `Key ${id} is revoked for good.`,
  update: (id) => `Key ${id} is saved.`,
  created: (name) => `Account ${name} is created.`,
  topup: (name) => `Account ${name} is topped up.`,
  adjust: (name) => `Account ${name} is adjusted.`,
  budget: (name) => `The budget of account ${name} is saved.`,
  tested: () => "A test event was sent.",
  enabled: (name) => `Account ${name} is enabled.`,
  disabled: (name) => `Account ${name} is disabled.`,
};

/** The query parameters of the requests page (`tollgate requests`'s flags). */
const REQUEST_FILTERS = [
  "id",
  "key",
  "account",
  "model",
  "status",
  "since",
  "until",
  "limit",
  "before",
];

type PageContext = Context<AdminEnv>;

/** The dashboard's routes, to mount at `/admin` behind `adminAccess`. */
export function dashboardPages(deps: DashboardDeps): Hono<AdminEnv> {
  const { service } = deps;
  const pages = new Hono<AdminEnv>();
  const query = (c: PageContext) => new URL(c.req.url).searchParams;
  const principal = (c: PageContext) => c.get("caller")!.principal;
  /** The message of `?done=`, naming what `?name=` names. */
  const done = (c: PageContext) => {
    const message = DONE[query(c).get("done") ?? ""];
    return message && message(query(c).get("name") ?? "");
  };

  pages.onError((error, c) => {
    const failure = asGatewayError(error);
    const caller = c.get("caller")?.principal;
    if (failure.status >= 500) {
      deps.log.error("dashboard page failed", {
        request_id: c.get("context").requestId,
        error: describeError(failure.cause ?? failure),
      });
    }
    const message = failure.status >= 500
      ? `tollgate failed to show this page. Its log has the details under request id ` +
        `${c.get("context").requestId}.`
      : failure.message;
    return c.html(<ErrorPage caller={caller} status={failure.status} message={message} />, {
      status: failure.status as 400,
      headers: failure.headers,
    });
  });

  signInRoutes(pages, deps);

  pages.get("/", async (c) => {
    const caller = principal(c);
    const range = rangeOf(query(c), deps.now());
    const [view, error] = await attempt(() =>
      loadUsageView(service, range, caller.admin ? undefined : caller.id)
    );
    if (!caller.admin) {
      const key = await service.keys.get(caller.id);
      const account = await service.accounts.get(key.account);
      return c.html(
        <OwnKeyPage
          caller={caller}
          keyJson={key}
          account={account}
          view={view}
          error={error}
          now={deps.now()}
        />,
        error ? 400 : 200,
      );
    }
    const keys = await service.keys.list();
    return c.html(
      <OverviewPage caller={caller} view={view} keys={keys} error={error} />,
      error ? 400 : 200,
    );
  });

  pages.use(async function adminOnly(c, next) {
    if (principal(c).admin) return await next();
    throw new GatewayError(
      403,
      "access_denied",
      "This page needs an admin key. Your own key's usage, quota and balance are on your page.",
    );
  });

  /** The keys page, with what an action adds to it. */
  const keysPage = async (c: PageContext, extra: Partial<Parameters<typeof KeysPage>[0]>) => (
    <KeysPage
      caller={principal(c)}
      keys={await service.keys.list()}
      accounts={await service.accounts.list()}
      groups={Object.keys(c.get("context").snapshot.config.groups)}
      now={deps.now()}
      {...extra}
    />
  );
  pages.get("/keys", async (c) => c.html(await keysPage(c, { done: done(c) })));
  pages.post("/keys", async (c) => {
    const form = await readForm(c.get("context"), deps.clock);
    const [created, error, status] = await attempt(() =>
      service.keys.create({ ...keyFieldsOf(form, false), account: form.get("account") ?? "" })
    );
    const values = error === undefined ? undefined : formValues(form);
    return c.html(await keysPage(c, { created, error, values }), status);
  });
  pages.post("/keys/:id", async (c) => {
    const id = c.req.param("id");
    const form = await readForm(c.get("context"), deps.clock);
    const action = form.get("action") ?? "";
    const [, error, status] = await attempt(() => {
      if (action === "revoke") return service.keys.revoke(id);
      if (action === "enable" || action === "disable") {
        return service.keys.update(id, { enabled: action === "enable" });
      }
      if (action === "update") return service.keys.update(id, keyFieldsOf(form, true));
      throw new GatewayError(400, "invalid_request", `Unknown action "${action}".`);
    });
    if (error !== undefined) return c.html(await keysPage(c, { error }), status);
    return c.redirect(`/admin/keys?${new URLSearchParams({ done: action, name: id })}`, 303);
  });

  const accountsPage = async (c: PageContext, extra: { error?: string; done?: string }) => (
    <AccountsPage caller={principal(c)} accounts={await service.accounts.list()} {...extra} />
  );
  pages.get("/accounts", async (c) => c.html(await accountsPage(c, { done: done(c) })));
  pages.post("/accounts", async (c) => {
    const form = await readForm(c.get("context"), deps.clock);
    const input = accountOf(form);
    const [, error, status] = await attempt(() => service.accounts.create(input));
    if (error !== undefined) {
      return c.html(
        <AccountsPage
          caller={principal(c)}
          accounts={await service.accounts.list()}
          values={formValues(form)}
          error={error}
        />,
        status,
      );
    }
    const done = new URLSearchParams({ done: "created", name: input.name.trim() });
    return c.redirect(`/admin/accounts?${done}`, 303);
  });
  pages.post("/accounts/:name", async (c) => {
    const name = c.req.param("name");
    const form = await readForm(c.get("context"), deps.clock);
    const action = form.get("action") ?? "";
    const [, error, status] = await attempt(() => {
      const reason = given(form, "reason");
      if (action === "topup") {
        return service.accounts.topUp(name, { usd: form.get("usd") ?? "", reason });
      }
      if (action === "adjust") {
        return service.accounts.adjust(name, { usd: form.get("usd") ?? "", reason: reason ?? "" });
      }
      if (action === "budget") return service.accounts.update(name, budgetOf(form, true));
      if (action === "enable" || action === "disable") {
        return service.accounts.update(name, { enabled: action === "enable" });
      }
      throw new GatewayError(400, "invalid_request", `Unknown action "${action}".`);
    });
    if (error !== undefined) return c.html(await accountsPage(c, { error }), status);
    const doneName = ["topup", "adjust", "budget"].includes(action) ? action : `${action}d`;
    return c.redirect(`/admin/accounts?${new URLSearchParams({ done: doneName, name })}`, 303);
  });

  pages.get("/accounts/:name/history", async (c) => {
    const name = c.req.param("name");
    const entries = await service.accounts.history(name);
    return c.html(<HistoryPage caller={principal(c)} name={name} entries={entries} />);
  });
  const alertsPage = async (c: PageContext, extra: { error?: string; done?: string }) => (
    <AlertsPage
      caller={principal(c)}
      events={await service.alerts.list({ limit: 200 })}
      webhooks={c.get("context").snapshot.config.alerts.webhooks.map((hook) => hook.name)}
      {...extra}
    />
  );
  pages.get("/alerts", async (c) => c.html(await alertsPage(c, { done: done(c) })));
  pages.post("/alerts/test", async (c) => {
    const form = await readForm(c.get("context"), deps.clock);
    const [, error, status] = await attempt(() =>
      service.alerts.test({ webhook: given(form, "webhook") })
    );
    if (error !== undefined) return c.html(await alertsPage(c, { error }), status);
    return c.redirect("/admin/alerts?done=tested", 303);
  });
  pages.get(
    "/channels",
    (c) => c.html(<ChannelsPage caller={principal(c)} channels={service.channels()} />),
  );
  pages.get("/requests", async (c) => {
    const params = query(c);
    const filters = Object.fromEntries(
      REQUEST_FILTERS.flatMap((name) => {
        const value = optional(params, name);
        return value === undefined ? [] : [[name, value]];
      }),
    );
    const [page, error, status] = await attempt(async () => {
      const filter = requestsQuery(params);
      const limit = filter.limit ?? DEFAULT_PAGE;
      // One row more than shown tells whether there is an older page.
      const rows = await service.requests({ ...filter, limit: Math.min(limit + 1, MAX_PAGE) });
      const last = rows.length > limit || rows.length === MAX_PAGE ? rows[limit - 1] : undefined;
      const older = last && new URLSearchParams({ ...filters, before: String(last.id) }).toString();
      return { rows: rows.slice(0, limit), older };
    });
    return c.html(
      <RequestsPage
        caller={principal(c)}
        filters={filters}
        rows={page?.rows ?? []}
        older={page?.older}
        error={error}
      />,
      status,
    );
  });

  pages.all("/*", (c) => {
    throw new GatewayError(404, "not_found", `There is no page ${c.req.path}.`);
  });
  return pages;
}

/**
 * Runs an action of the service: its result, or the message and status of the refusal it
 * met (a value that cannot be used, a name taken, ...). Anything else is thrown on.
 */
async function attempt<T>(
  action: () => Promise<T>,
): Promise<[T, undefined, 200] | [undefined, string, 400]> {
  try {
    return [await action(), undefined, 200];
  } catch (error) {
    if (!(error instanceof GatewayError) || error.status >= 500) throw error;
    return [undefined, error.message, error.status as 400];
  }
}
