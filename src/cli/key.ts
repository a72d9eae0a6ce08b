/** `tollgate key ...`: create (showing the secret once), list, disable, enable and revoke keys. */
import { issueKey } from "../auth/issue_key.ts";
import { findAccountByName } from "../db/accounts.ts";
import { type KeyWithAccountName, listKeys, revokeKey, setKeyEnabled } from "../db/keys.ts";
import {
  type CliContext,
  CONFIG_OPTION,
  dispatch,
  expectPositionals,
  parseCommandArgs,
  withDatabase,
} from "./context.ts";
import { formatTable, isoOrNull, printJson, usageError, userError } from "./output.ts";
import { parseCidrListArg, parseIsoArg, parseListArg, parseTokensArg } from "./values.ts";

/** Usage lines of the `key` command group. */
export const KEY_USAGE = [
  "tollgate key create --account NAME [--group G] [--name LABEL] [--quota TOKENS]",
  "                    [--expires ISO8601] [--models m1,m2] [--allow-ip CIDR,CIDR] [--json]",
  "tollgate key list [--account NAME] [--json]",
  "tollgate key disable|enable|revoke KEY_ID",
].join("\n");

/** Runs `key <subcommand> ...`; returns the exit status. */
export function runKeyCommand(args: string[], ctx: CliContext): Promise<number> {
  return dispatch(args, ctx, "key", KEY_USAGE, {
    create: createCommand,
    list: listCommand,
    enable: (rest) => changeStateCommand(rest, ctx, "enable"),
    disable: (rest) => changeStateCommand(rest, ctx, "disable"),
    revoke: (rest) => changeStateCommand(rest, ctx, "revoke"),
  });
}

async function createCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = {
    ...CONFIG_OPTION,
    account: { type: "string" },
    group: { type: "string", default: "default" },
    name: { type: "string" },
    quota: { type: "string" },
    expires: { type: "string" },
    models: { type: "string" },
    "allow-ip": { type: "string" },
    json: { type: "boolean" },
  } as const;
  const { values, positionals } = parseCommandArgs(args, options, KEY_USAGE);
  expectPositionals(positionals, [], KEY_USAGE);
  const accountName = values.account;
  if (accountName === undefined) throw usageError("Missing option --account NAME", KEY_USAGE);
  const group = values.group;
  const quota = values.quota === undefined
    ? null
    : parseTokensArg(values.quota, "--quota", KEY_USAGE);
  // A past time is allowed: the key is simply created expired.
  const expiresAt = values.expires === undefined
    ? null
    : parseIsoArg(values.expires, "--expires", KEY_USAGE);
  const models = values.models === undefined
    ? null
    : parseListArg(values.models, "--models", KEY_USAGE);
  const allowIps = values["allow-ip"] === undefined
    ? null
    : parseCidrListArg(values["allow-ip"], "--allow-ip", KEY_USAGE);

  const { key, secret } = await withDatabase(
    ctx,
    values.config,
    async ({ db, config, configPath }) => {
      if (!(group in config.groups)) {
        const known = Object.keys(config.groups).map((name) => `"${name}"`).join(", ");
        throw userError(
          `Creating key failed: group "${group}" is not defined in "${configPath}"; ` +
            (known ? `use one of ${known} or add [groups.${group}].` : `add [groups.${group}].`),
        );
      }
      const account = await findAccountByName(db.kysely, accountName);
      if (account === undefined) {
        throw userError(
          `Creating key failed: account "${accountName}" does not exist; ` +
            `create it with "tollgate account create ${accountName}".`,
        );
      }
      return await issueKey(db.kysely, {
        accountId: account.id,
        group,
        name: values.name ?? null,
        quotaTokens: quota,
        expiresAt,
        models,
        allowIps,
        createdAt: ctx.now(),
      });
    },
  );

  if (values.json) {
    printJson(ctx.io, {
      id: key.id,
      key: secret,
      account: accountName,
      group: key.group_name,
      name: key.name,
      quota_tokens: key.quota_tokens,
      expires_at: isoOrNull(key.expires_at),
    });
    return 0;
  }
  ctx.io.stdout(
    [
      `Created key ${key.id} for account "${accountName}" in group "${key.group_name}".`,
      "Its secret is shown only this once; store it now:",
      "",
      `  ${secret}`,
    ].join("\n"),
  );
  return 0;
}

async function listCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = {
    ...CONFIG_OPTION,
    account: { type: "string" },
    json: { type: "boolean" },
  } as const;
  const { values, positionals } = parseCommandArgs(args, options, KEY_USAGE);
  expectPositionals(positionals, [], KEY_USAGE);
  const accountName = values.account;
  const keys = await withDatabase(ctx, values.config, async ({ db }) => {
    if (accountName !== undefined && !(await findAccountByName(db.kysely, accountName))) {
      throw userError(
        `Listing keys failed: account "${accountName}" does not exist; see "tollgate account list".`,
      );
    }
    return await listKeys(db.kysely, { accountName });
  });
  if (values.json) {
    printJson(ctx.io, keys.map(keyJson));
    return 0;
  }
  if (keys.length === 0) {
    ctx.io.stdout('No keys yet; create one with "tollgate key create --account NAME".');
    return 0;
  }
  const now = ctx.now();
  ctx.io.stdout(formatTable(
    [
      "ID",
      "ACCOUNT",
      "GROUP",
      "NAME",
      "PREFIX",
      "STATUS",
      "EXPIRES",
      "USED_TOKENS",
      "LEFT_TOKENS",
      "MODELS",
      "ALLOW_IPS",
    ],
    keys.map((key) => [
      key.id,
      key.account_name,
      key.group_name,
      key.name ?? "-",
      `${key.prefix}...`,
      keyStatus(key, now),
      isoOrNull(key.expires_at) ?? "never",
      String(key.used_tokens),
      key.quota_tokens === null
        ? "no quota"
        : String(Math.max(0, key.quota_tokens - key.used_tokens)),
      parseJsonList(key.models)?.join(",") ?? "all",
      parseJsonList(key.allow_ips)?.join(",") ?? "any",
    ]),
  ));
  return 0;
}

async function changeStateCommand(
  args: string[],
  ctx: CliContext,
  action: "enable" | "disable" | "revoke",
): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, CONFIG_OPTION, KEY_USAGE);
  const [id = ""] = expectPositionals(positionals, ["KEY_ID"], KEY_USAGE);
  const verb = { enable: "Enabling", disable: "Disabling", revoke: "Revoking" }[action];
  const result = await withDatabase(ctx, values.config, async ({ db }) => {
    if (action === "revoke") return (await revokeKey(db.kysely, id)) ? "updated" : "not_found";
    return await setKeyEnabled(db.kysely, id, action === "enable");
  });
  if (result === "not_found") {
    throw userError(`${verb} key "${id}" failed: there is no such key; see "tollgate key list".`);
  }
  if (result === "revoked") {
    throw userError(
      `${verb} key "${id}" failed: the key is revoked, which is final; create a new key instead.`,
    );
  }
  const done = { enable: "Enabled", disable: "Disabled", revoke: "Revoked" }[action];
  ctx.io.stdout(`${done} key ${id}.`);
  return 0;
}

/** The stable `key list --json` record (design.md). */
function keyJson(key: KeyWithAccountName) {
  return {
    id: key.id,
    account: key.account_name,
    group: key.group_name,
    name: key.name,
    prefix: key.prefix,
    enabled: key.enabled === 1,
    revoked: key.revoked === 1,
    expires_at: isoOrNull(key.expires_at),
    quota_tokens: key.quota_tokens,
    used_tokens: key.used_tokens,
    models: parseJsonList(key.models),
    allow_ips: parseJsonList(key.allow_ips),
  };
}

/** One word for whether the key works now, the most final reason first. */
function keyStatus(key: KeyWithAccountName, now: number): string {
  if (key.revoked) return "revoked";
  if (!key.enabled) return "disabled";
  if (key.expires_at !== null && key.expires_at <= now) return "expired";
  return "active";
}

/** A stored JSON array column as strings, or null when unrestricted. */
function parseJsonList(value: string | null): string[] | null {
  if (value === null) return null;
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) ? parsed.map(String) : null;
}
