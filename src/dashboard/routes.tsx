/**
 * The dashboard's pages under /admin: sign-in and sign-out (sign_in_routes.tsx), then the
 * pages of design.md (an admin key's) or a key's own page; the pages of one key, account,
 * model or channel are detail_routes.tsx's. Each page calls the admin service as the CLI
 * does; a form's refusal is shown on its page with what was typed, and anything else that
 * fails is a page saying so, never a stack trace.
 */
import { Hono } from "hono";
import type { UpdatedKeyJson } from "../admin/keys.ts";
import { knownModels } from "../admin/model_warnings.ts";
import { DEFAULT_PAGE, MAX_PAGE } from "../admin/requests.ts";
import { optional, RequestsQuerySchema } from "../api/admin_api_input.ts";
import { readQuery } from "../api/query.ts";
import { asGatewayError, GatewayError } from "../errors.ts";
import { describeError } from "../log.ts";
import type { AdminEnv } from "../api/admin_access.ts";
import { AccountsPage } from "./accounts.tsx";
import { AlertsPage, HistoryPage } from "./alerts.tsx";
import { ChannelsPage } from "./channels.tsx";
import { detailRoutes } from "./detail_routes.tsx";
import { accountOf, budgetOf, formValues, given, keyFieldsOf, readForm } from "./forms.ts";
import { KeysPage, type KeysPageProps } from "./keys.tsx";
import { OverviewPage } from "./overview.tsx";
import { OwnKeyPage } from "./own_key.tsx";
import {
  attempt,
  type DashboardDeps,
  doneMessage,
  doneText,
  keyLabel,
  type PageContext,
  render,
  zoneOf,
} from "./page_kit.tsx";
import { RequestsPage } from "./requests.tsx";
import { noteRefusal } from "../api/refusal_note.ts";
import { ErrorPage } from "./sign_in.tsx";
import { signInRoutes } from "./sign_in_routes.tsx";
import { loadUsageView, rangeOf } from "./usage_range.ts";

export type { DashboardDeps } from "./page_kit.tsx";

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

/** The dashboard's routes, to mount at `/admin` behind `adminAccess`. */
export function dashboardPages(deps: DashboardDeps): Hono<AdminEnv> {
  const { service } = deps;
  const pages = new Hono<AdminEnv>();
  const query = (c: PageContext) => new URL(c.req.url).searchParams;
  const principal = (c: PageContext) => c.get("caller")!.principal;

  pages.onError((error, c) => {
    const failure = asGatewayError(error);
    const caller = c.get("caller")?.principal;
    if (failure.status >= 500) {
      deps.log.error("dashboard page failed", {
        request_id: c.var.requestId,
        error: describeError(failure.cause ?? failure),
      });
    }
    noteRefusal(c, failure);
    const message = failure.status >= 500
      ? `tollgate failed to show this page. Its log has the details under request id ` +
        `${c.var.requestId}.`
      : failure.message;
    return c.html(<ErrorPage caller={caller} status={failure.status} message={message} />, {
      status: failure.status as 400,
      headers: failure.headers,
    });
  });

  signInRoutes(pages, deps);

  pages.get("/", async (c) => {
    const caller = principal(c);
    const { range, error: rangeError } = rangeOf(query(c), deps.now(), zoneOf(c));
    // An admin's overview may be narrowed to a key, an account or a model.
    const scope = caller.admin
      ? {
        key: optional(query(c), "key"),
        account: optional(query(c), "account"),
        model: optional(query(c), "model"),
      }
      : { key: caller.id };
    const [view, error] = await attempt(() => loadUsageView(service, range, scope));
    if (!caller.admin) {
      const key = await service.keys.get(caller.id);
      const account = await service.accounts.get(key.account);
      return render(
        c,
        <OwnKeyPage
          caller={caller}
          keyJson={key}
          account={account}
          view={view}
          error={error ?? rangeError}
          now={deps.now()}
        />,
        error || rangeError ? 400 : 200,
      );
    }
    const keys = await service.keys.list();
    return render(
      c,
      <OverviewPage caller={caller} view={view} keys={keys} error={error ?? rangeError} />,
      error || rangeError ? 400 : 200,
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
  // The pages of one key, account, model and channel.
  const { keyPageAfter, accountPageAfter } = detailRoutes(pages, deps);

  /** The keys page, with what an action adds to it. */
  const keysPage = async (c: PageContext, extra: Partial<KeysPageProps>) => {
    const { config } = c.var.snapshot;
    return (
      <KeysPage
        caller={principal(c)}
        keys={await service.keys.list()}
        accounts={await service.accounts.list()}
        groups={Object.keys(config.groups)}
        models={knownModels(config)}
        search={{ q: optional(query(c), "q"), revoked: optional(query(c), "revoked") }}
        now={deps.now()}
        {...extra}
      />
    );
  };
  pages.get("/keys", async (c) => render(c, await keysPage(c, { done: doneMessage(c) })));
  pages.post("/keys", async (c) => {
    const form = await readForm(c, deps.clock);
    const [created, error, status] = await attempt(() =>
      service.keys.create({ ...keyFieldsOf(form, false), account: form.get("account") ?? "" })
    );
    const values = error === undefined ? undefined : formValues(form);
    return render(
      c,
      await keysPage(c, { created, error, values, warnings: created?.warnings }),
      status,
    );
  });
  pages.post("/keys/:id", async (c) => {
    const id = c.req.param("id");
    const form = await readForm(c, deps.clock);
    const action = form.get("action") ?? "";
    const [key, error, status] = await attempt(() => {
      if (action === "revoke") return service.keys.revoke(id);
      if (action === "enable" || action === "disable") {
        return service.keys.update(id, { enabled: action === "enable" });
      }
      if (action === "update") return service.keys.update(id, keyFieldsOf(form, true));
      throw new GatewayError(400, "invalid_request", `Unknown action "${action}".`);
    });
    const back = form.get("back") === "page" ? `/admin/keys/${encodeURIComponent(id)}` : undefined;
    if (back) {
      // The key's page shows the refusal, or the warnings of a change that went through.
      const warnings = key && "warnings" in key ? (key as UpdatedKeyJson).warnings : [];
      if (error !== undefined || warnings.length > 0) {
        return await keyPageAfter(c, id, {
          error,
          values: action === "update" && error !== undefined ? formValues(form) : undefined,
          done: key && doneText(action, keyLabel(key)),
          warnings,
        }, status);
      }
    } else if (error !== undefined) return render(c, await keysPage(c, { error }), status);
    const done = new URLSearchParams({ done: action, name: keyLabel(key!) });
    return c.redirect(`${back ?? "/admin/keys"}?${done}`, 303);
  });

  const accountsPage = async (c: PageContext, extra: { error?: string; done?: string }) => (
    <AccountsPage caller={principal(c)} accounts={await service.accounts.list()} {...extra} />
  );
  pages.get("/accounts", async (c) => render(c, await accountsPage(c, { done: doneMessage(c) })));
  pages.post("/accounts", async (c) => {
    const form = await readForm(c, deps.clock);
    const input = accountOf(form);
    const [, error, status] = await attempt(() => service.accounts.create(input));
    if (error !== undefined) {
      return render(
        c,
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
    const form = await readForm(c, deps.clock);
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
    const back = form.get("back") === "page"
      ? `/admin/accounts/${encodeURIComponent(name)}`
      : "/admin/accounts";
    if (error !== undefined) {
      if (back === "/admin/accounts") return render(c, await accountsPage(c, { error }), status);
      return await accountPageAfter(c, name, { error }, status);
    }
    const doneName = ["topup", "adjust", "budget"].includes(action) ? action : `${action}d`;
    return c.redirect(`${back}?${new URLSearchParams({ done: doneName, name })}`, 303);
  });

  pages.get("/accounts/:name/history", async (c) => {
    const name = c.req.param("name");
    const entries = await service.accounts.history(name);
    return render(c, <HistoryPage caller={principal(c)} name={name} entries={entries} />);
  });
  const alertsPage = async (c: PageContext, extra: { error?: string; done?: string }) => (
    <AlertsPage
      caller={principal(c)}
      events={await service.alerts.list({ limit: 200 })}
      webhooks={c.var.snapshot.config.alerts.webhooks.map((hook) => hook.name)}
      {...extra}
    />
  );
  pages.get("/alerts", async (c) => render(c, await alertsPage(c, { done: doneMessage(c) })));
  pages.post("/alerts/test", async (c) => {
    const form = await readForm(c, deps.clock);
    const [, error, status] = await attempt(() =>
      service.alerts.test({ webhook: given(form, "webhook") })
    );
    if (error !== undefined) return render(c, await alertsPage(c, { error }), status);
    return c.redirect("/admin/alerts?done=tested", 303);
  });

  pages.get("/channels", async (c) =>
    render(
      c,
      <ChannelsPage caller={principal(c)} channels={await service.channels()} now={deps.now()} />,
    ));
  pages.get("/requests", async (c) => {
    const params = query(c);
    const filters = Object.fromEntries(
      REQUEST_FILTERS.flatMap((name) => {
        const value = optional(params, name);
        return value === undefined ? [] : [[name, value]];
      }),
    );
    const [page, error, status] = await attempt(async () => {
      const filter = readQuery(RequestsQuerySchema, params);
      const limit = filter.limit ?? DEFAULT_PAGE;
      // One row more than shown tells whether there is an older page.
      const rows = await service.requests({ ...filter, limit: Math.min(limit + 1, MAX_PAGE) });
      const last = rows.length > limit || rows.length === MAX_PAGE ? rows[limit - 1] : undefined;
      const older = last && new URLSearchParams({ ...filters, before: String(last.id) }).toString();
      return { rows: rows.slice(0, limit), older };
    });
    const names = new Map((await service.keys.list()).map((key) => [key.id, key.name]));
    return render(
      c,
      <RequestsPage
        caller={principal(c)}
        filters={filters}
        rows={page?.rows ?? []}
        names={names}
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
