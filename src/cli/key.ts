/** `tollgate key ...`: create (showing the secret once), list, update, disable, enable, revoke. */
import type { KeyJson, KeyUpdate } from "../admin/keys.ts";
import { withAdmin } from "./admin_session.ts";
import { type Command, group, JSON_FLAG, subcommand } from "./command.ts";
import { formatTable, printJson, usageError } from "./output.ts";
import { parseCidrListArg, parseIsoArg, parseListArg, parseTokensArg } from "./values.ts";
import { BUDGET_FLAGS, budgetFields } from "./budget_flags.ts";

const create = subcommand({
  usage: "tollgate key create --account NAME [--group G] [--name LABEL] [--quota TOKENS]\n" +
    "                    [--expires ISO8601] [--models m1,m2] [--allow-ip CIDR,CIDR] [--admin] [--json]\n" +
    "                    [--budget USD|none|default] [--budget-period day|week|month|total]",
  summary: "Creates a key and prints its secret, once: only its hash is stored.",
  flags: {
    account: { type: "string", value: "NAME", help: "the account the key spends from (required)" },
    group: {
      type: "string",
      value: "G",
      help: "the group whose models and limits apply (default: default)",
    },
    name: { type: "string", value: "LABEL", help: "a label to recognise the key by" },
    quota: {
      type: "string",
      value: "TOKENS",
      help: "input plus output tokens the key may use in all",
    },
    expires: {
      type: "string",
      value: "ISO8601",
      help: "when the key stops working (a past time is allowed)",
    },
    models: {
      type: "string",
      value: "m1,m2",
      help: "the only models the key may use (default: its group's)",
    },
    "allow-ip": {
      type: "string",
      value: "CIDR,CIDR",
      help: "the only addresses the key may be used from",
    },
    admin: { type: "boolean", help: "the key may use the admin API and the dashboard" },
    ...BUDGET_FLAGS,
    json: { type: "boolean", help: "print one JSON object {id, key, ...} and nothing else" },
  },
  async run({ values }, ctx) {
    const usage = create.usage;
    if (values.account === undefined) throw usageError("Missing option --account NAME", usage);
    const fields = keyFields(values, usage);
    const created = await withAdmin(
      ctx,
      values.config,
      (admin) => admin.keys.create({ ...fields, account: values.account! }),
    );
    const { warnings, ...json } = created;
    warn(ctx, warnings);
    if (values.json) {
      printJson(ctx.io, json);
      return 0;
    }
    ctx.io.stdout(
      [
        `Created key ${created.id} for account "${created.account}" in group "${created.group}".`,
        "Its secret is shown only this once; store it now:",
        "",
        `  ${created.key}`,
      ].join("\n"),
    );
    return 0;
  },
});

const list = subcommand({
  usage: "tollgate key list [--account NAME] [--json]",
  summary: "Lists the keys (never their secrets), oldest first.",
  flags: {
    account: { type: "string", value: "NAME", help: "only this account's keys" },
    json: JSON_FLAG,
  },
  async run({ values }, ctx) {
    const keys = await withAdmin(
      ctx,
      values.config,
      (admin) => admin.keys.list({ account: values.account }),
    );
    if (values.json) {
      printJson(ctx.io, keys);
      return 0;
    }
    if (keys.length === 0) {
      ctx.io.stdout('No keys yet; create one with "tollgate key create --account NAME".');
      return 0;
    }
    ctx.io.stdout(keyTable(keys, ctx.now()));
    return 0;
  },
});

const update = subcommand({
  usage:
    "tollgate key update KEY_ID [--name L] [--group G] [--quota TOKENS|none] [--expires T|never]\n" +
    "                    [--models m1,m2|all] [--allow-ip CIDR,...|any] [--admin|--no-admin]\n" +
    "                    [--budget USD|none|default] [--budget-period day|week|month|total]",
  summary: "Changes a key's label, group, quota, expiry, models, addresses or admin right; " +
    "a running server sees it within 2 seconds.",
  positionals: ["KEY_ID"],
  flags: {
    name: { type: "string", value: "L", help: "a new label" },
    group: { type: "string", value: "G", help: "move the key to this group" },
    quota: { type: "string", value: "TOKENS", help: "a new token quota, or none for no quota" },
    expires: { type: "string", value: "T", help: "a new expiry (ISO 8601), or never" },
    models: { type: "string", value: "m1,m2", help: "the only models it may use, or all" },
    "allow-ip": {
      type: "string",
      value: "CIDR,...",
      help: "the only addresses it may be used from, or any",
    },
    admin: { type: "boolean", help: "let the key use the admin API and the dashboard" },
    "no-admin": { type: "boolean", help: "take that right away" },
    ...BUDGET_FLAGS,
    json: { type: "boolean", help: "print the key as key list --json shows it" },
  },
  async run({ values, positionals: [id = ""] }, ctx) {
    const usage = update.usage;
    if (values.admin && values["no-admin"]) {
      throw usageError("Give either --admin or --no-admin, not both", usage);
    }
    const changes: KeyUpdate = keyFields(values, usage);
    if (values["no-admin"]) changes.admin = false;
    if (Object.keys(changes).length === 0) {
      throw usageError("Nothing to change: give at least one option", usage);
    }
    const { warnings, ...key } = await withAdmin(
      ctx,
      values.config,
      (admin) => admin.keys.update(id, changes),
    );
    warn(ctx, warnings);
    if (values.json) printJson(ctx.io, key);
    else ctx.io.stdout(`Updated key ${id}.`);
    return 0;
  },
});

/** Prints on stderr what will not work as asked (the key was made or changed all the same). */
function warn(ctx: { io: { stderr(text: string): void } }, warnings: readonly string[]): void {
  for (const warning of warnings) ctx.io.stderr(`Warning: ${warning}`);
}

/** `key enable|disable|revoke KEY_ID`. */
function changeState(action: "enable" | "disable" | "revoke") {
  return subcommand({
    usage: "tollgate key disable|enable|revoke KEY_ID",
    summary: {
      enable: "Enables a key again (not a revoked one).",
      disable:
        "Disables a key until it is enabled again; a running server refuses it within 2 seconds.",
      revoke: "Revokes a key for good: it can never be enabled again.",
    }[action],
    positionals: ["KEY_ID"],
    flags: {},
    async run({ values, positionals: [id = ""] }, ctx) {
      await withAdmin(
        ctx,
        values.config,
        (admin) =>
          action === "revoke"
            ? admin.keys.revoke(id)
            : admin.keys.update(id, { enabled: action === "enable" }),
      );
      const done = { enable: "Enabled", disable: "Disabled", revoke: "Revoked" }[action];
      ctx.io.stdout(`${done} key ${id}.`);
      return 0;
    },
  });
}

/** The `key` command group. */
export const KEY_COMMAND: Command = group("key", {
  create,
  list,
  update,
  enable: changeState("enable"),
  disable: changeState("disable"),
  revoke: changeState("revoke"),
});

/** The flags `create` and `update` share. */
interface KeyFlagValues {
  group?: string;
  name?: string;
  quota?: string;
  expires?: string;
  models?: string;
  "allow-ip"?: string;
  admin?: boolean;
  budget?: string;
  "budget-period"?: string;
}

/**
 * The key fields the flags give, each checked (bad usage otherwise): `none`, `never`, `all`
 * and `any` clear a limit.
 */
function keyFields(values: KeyFlagValues, usage: string): KeyUpdate {
  const fields: KeyUpdate = {};
  if (values.group !== undefined) fields.group = values.group;
  if (values.name !== undefined) fields.name = values.name;
  if (values.quota !== undefined) {
    fields.quota_tokens = values.quota === "none"
      ? null
      : parseTokensArg(values.quota, "--quota", usage);
  }
  if (values.expires !== undefined) {
    // A past time is allowed: the key is simply expired.
    if (values.expires !== "never") parseIsoArg(values.expires, "--expires", usage);
    fields.expires_at = values.expires === "never" ? null : values.expires;
  }
  if (values.models !== undefined) {
    fields.models = values.models === "all" ? null : parseListArg(values.models, "--models", usage);
  }
  const allowIp = values["allow-ip"];
  if (allowIp !== undefined) {
    fields.allow_ips = allowIp === "any" ? null : parseCidrListArg(allowIp, "--allow-ip", usage);
  }
  if (values.admin) fields.admin = true;
  Object.assign(fields, budgetFields(values, usage));
  return fields;
}

/** The keys as a table, with one word for whether each works now. */
function keyTable(keys: readonly KeyJson[], now: number): string {
  return formatTable(
    [
      "ID",
      "ACCOUNT",
      "GROUP",
      "NAME",
      "PREFIX",
      "STATUS",
      "ADMIN",
      "EXPIRES",
      "USED_TOKENS",
      "LEFT_TOKENS",
      "MODELS",
      "ALLOW_IPS",
      "CREATED",
      "LAST_USED",
    ],
    keys.map((key) => [
      key.id,
      key.account,
      key.group,
      key.name ?? "-",
      `${key.prefix}...`,
      keyStatus(key, now),
      key.admin ? "yes" : "no",
      key.expires_at ?? "never",
      String(key.used_tokens),
      key.quota_tokens === null
        ? "no quota"
        : String(Math.max(0, key.quota_tokens - key.used_tokens)),
      key.models?.join(",") ?? "all",
      key.allow_ips?.join(",") ?? "any",
      key.created_at,
      key.last_used_at ?? "never",
    ]),
  );
}

/** One word for whether the key works now, the most final reason first. */
function keyStatus(key: KeyJson, now: number): string {
  if (key.revoked) return "revoked";
  if (!key.enabled) return "disabled";
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now) return "expired";
  return "active";
}
