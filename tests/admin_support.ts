/**
 * Helpers of the admin API and dashboard tests: calls with a key or a session cookie,
 * signing in as a browser does, and the CLI's own `--json` answers against a gateway's
 * config and database.
 */
import assert from "node:assert/strict";
import { runCli } from "../src/cli/main.ts";
import type { TestGateway } from "./harness.ts";

/** How a test calls /admin: with a key (Bearer), a session cookie, or neither. */
export interface AdminCall {
  method?: string;
  key?: string;
  cookie?: string;
  /** JSON (an object) or a form (URLSearchParams). */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Calls `path` (under the gateway's root) as `call` says; never follows a redirect. */
export function adminFetch(gateway: TestGateway, path: string, call: AdminCall = {}) {
  const headers = new Headers(call.headers);
  if (call.key) headers.set("authorization", `Bearer ${call.key}`);
  if (call.cookie) headers.set("cookie", call.cookie);
  let body: string | undefined;
  if (call.body instanceof URLSearchParams) {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = call.body.toString();
  } else if (call.body !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(call.body);
  }
  return fetch(`${gateway.url}${path}`, {
    method: call.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
    redirect: "manual",
  });
}

/** The JSON of a call that must answer `status`. */
export async function adminJson<T = unknown>(
  gateway: TestGateway,
  path: string,
  call: AdminCall = {},
  status = 200,
): Promise<T> {
  const response = await adminFetch(gateway, path, call);
  const text = await response.text();
  assert.equal(response.status, status, `${call.method ?? "GET"} ${path}: ${text}`);
  return JSON.parse(text) as T;
}

/** A form post as the dashboard's own pages send it (same origin). */
export function formPost(gateway: TestGateway, path: string, cookie: string, fields: object) {
  return adminFetch(gateway, path, {
    cookie,
    body: new URLSearchParams(fields as Record<string, string>),
    headers: { origin: gateway.url, "sec-fetch-site": "same-origin" },
  });
}

/** Signs in with `secret` as the sign-in form does; returns the cookie and its attributes. */
export async function signIn(
  gateway: TestGateway,
  secret: string,
): Promise<{ cookie: string; attributes: string[]; location: string }> {
  const response = await adminFetch(gateway, "/admin/sign-in", {
    body: new URLSearchParams({ key: secret, next: "/admin/keys" }),
    headers: { origin: gateway.url, "sec-fetch-site": "same-origin" },
  });
  await response.body?.cancel();
  assert.equal(response.status, 303, "signing in redirects");
  const [pair, ...attributes] = (response.headers.get("set-cookie") ?? "").split(/;\s*/);
  assert.match(pair ?? "", /^tollgate_session=[0-9A-Za-z]{48}$/);
  return { cookie: pair!, attributes, location: response.headers.get("location") ?? "" };
}

/** Runs `tollgate ARGS --json --config <the gateway's>` in this process; its parsed stdout. */
export async function cliJson<T = unknown>(gateway: TestGateway, ...args: string[]): Promise<T> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(
    [...args, "--json", "--config", gateway.configPath],
    { stdout: (text) => stdout.push(text), stderr: (text) => stderr.push(text) },
    { env: () => undefined },
  );
  assert.equal(code, 0, `tollgate ${args.join(" ")}: ${stderr.join("\n")}`);
  return JSON.parse(stdout.join("\n")) as T;
}

/** Runs `tollgate ARGS --config <the gateway's>`, which must succeed. */
export async function cli(gateway: TestGateway, ...args: string[]): Promise<void> {
  const stderr: string[] = [];
  const code = await runCli(
    [...args, "--config", gateway.configPath],
    { stdout: () => {}, stderr: (text) => stderr.push(text) },
    { env: () => undefined },
  );
  assert.equal(code, 0, `tollgate ${args.join(" ")}: ${stderr.join("\n")}`);
}
