/**
 * The dashboard's files, embedded in the executable as text imports (no CDN, nothing read
 * from disk), served under /admin/assets/ with names that carry their content's hash, so a
 * browser may keep them for good and a new build is fetched anew.
 */
import { hash } from "node:crypto";
import { Hono } from "hono";
import type { AdminEnv } from "../api/admin_access.ts";
import css from "./assets/dashboard.css" with { type: "text" };
import script from "./assets/dashboard.js" with { type: "text" };
import icon from "./assets/icon.svg" with { type: "text" };

/** One embedded file: its URL path (under /admin) and what it is served as. */
interface Asset {
  path: string;
  body: string;
  type: string;
}

function asset(name: string, body: string, type: string): Asset {
  const [stem, extension] = name.split(".");
  const version = hash("sha256", body, "hex").slice(0, 12);
  return { path: `/assets/${stem}.${version}.${extension}`, body, type };
}

/** The stylesheet, the script and the icon, by what pages link them as. */
export const ASSETS = {
  css: asset("dashboard.css", css, "text/css; charset=utf-8"),
  script: asset("dashboard.js", script, "text/javascript; charset=utf-8"),
  icon: asset("icon.svg", icon, "image/svg+xml"),
} as const;

/** The URL of an asset, for a page's `<link>` or `<script>`. */
export function assetUrl(name: keyof typeof ASSETS): string {
  return `/admin${ASSETS[name].path}`;
}

/** Serves the embedded files (no session needed: they hold nothing of anyone's). */
export function dashboardAssets(): Hono<AdminEnv> {
  const assets = new Hono<AdminEnv>();
  for (const { path, body, type } of Object.values(ASSETS)) {
    assets.get(path, () =>
      new Response(body, {
        headers: {
          "content-type": type,
          "cache-control": "public, max-age=31536000, immutable",
        },
      }));
  }
  return assets;
}
