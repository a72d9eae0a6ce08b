/** The frame of every dashboard page: head, navigation, sign-out, and notices. */
import type { Child, FC } from "hono/jsx";
import { raw } from "hono/html";
import type { Principal } from "../auth/principal.ts";
import { assetUrl } from "./assets.ts";

/** The pages an admin key sees, in the navigation's order. */
const ADMIN_PAGES = [
  ["overview", "/admin", "Overview"],
  ["keys", "/admin/keys", "Keys"],
  ["accounts", "/admin/accounts", "Accounts"],
  ["channels", "/admin/channels", "Channels"],
  ["requests", "/admin/requests", "Requests"],
  ["alerts", "/admin/alerts", "Alerts"],
] as const;

/** A page's name in the navigation. */
export type PageName = (typeof ADMIN_PAGES)[number][0] | "own" | "none";

/** A whole page: `caller` decides the navigation (none before sign-in). */
export const Layout: FC<{ title: string; caller?: Principal; page: PageName; children?: Child }> = (
  { title, caller, page, children },
) => (
  <>
    {raw("<!DOCTYPE html>")}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title} · tollgate</title>
        <link rel="stylesheet" href={assetUrl("css")} />
        <link rel="icon" href={assetUrl("icon")} type="image/svg+xml" />
        <script src={assetUrl("script")} defer></script>
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/admin">tollgate</a>
          {caller && (
            <nav aria-label="Pages">
              {caller.admin
                ? ADMIN_PAGES.map(([name, href, label]) => (
                  <a href={href} aria-current={name === page ? "page" : undefined}>{label}</a>
                ))
                : <a href="/admin" aria-current="page">My key</a>}
            </nav>
          )}
          {caller && (
            <form method="post" action="/admin/sign-out" class="actions">
              <span class="who">
                {caller.admin ? "admin" : "key"} <code>{caller.id}</code>
              </span>
              <button type="submit" class="plain">Sign out</button>
            </form>
          )}
        </header>
        <main>{children}</main>
      </body>
    </html>
  </>
);

/** What an action did, or why it failed, and what will not work as asked, above a page's content. */
export const Notice: FC<{ error?: string; done?: string; warnings?: string[] }> = (
  { error, done, warnings = [] },
) => (
  <>
    {error && <p class="notice error" role="alert">{error}</p>}
    {done && <p class="notice done" role="status">{done}</p>}
    {warnings.map((warning) => <p class="notice warn" role="status">Warning: {warning}</p>)}
  </>
);
