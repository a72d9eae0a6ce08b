/**
 * API keys: create (the secret shown once), list, update, enable, disable and revoke (for
 * good). A change is in the database at once; a serving process sees it within 2 seconds
 * (auth/key_cache.ts).
 */
import { issueKey, type KeyGrant } from "../auth/issue_key.ts";
import { findAccountByName } from "../db/accounts.ts";
import {
  type KeyChanges,
  type KeyWithAccountName,
  listKeys,
  revokeKey,
  setKeyEnabled,
  updateKey,
} from "../db/keys.ts";
import type { AdminDeps } from "./deps.ts";
import { conflict, invalidField, notFound } from "./errors.ts";
import { cidrsField, nameField, namesField, timeField, tokensField } from "./fields.ts";
import { modelWarnings } from "./model_warnings.ts";
import {
  budgetChanges,
  type BudgetInput,
  type BudgetJson,
  budgetJson,
  ownBudgetOf,
} from "./budgets.ts";

/** A key as `key list --json` shows it (design.md); times as ISO 8601, null when unset. */
export interface KeyJson extends Partial<BudgetJson> {
  id: string;
  account: string;
  group: string;
  name: string | null;
  /** The secret's first characters, to recognise it. */
  prefix: string;
  enabled: boolean;
  revoked: boolean;
  expires_at: string | null;
  quota_tokens: number | null;
  used_tokens: number;
  models: string[] | null;
  allow_ips: string[] | null;
  admin: boolean;
  created_at: string;
  last_used_at: string | null;
}

/**
 * A key just made, as `key create --json` prints it: the only time its secret is shown.
 * `warnings` names what will not work as asked (a model the config does not know).
 */
export interface CreatedKeyJson {
  id: string;
  key: string;
  account: string;
  group: string;
  name: string | null;
  quota_tokens: number | null;
  expires_at: string | null;
  warnings: string[];
}

/** A key just changed, as `key list --json` shows it, with the change's warnings. */
export type UpdatedKeyJson = KeyJson & { warnings: string[] };

/** What a key is for and how it is limited; null clears a limit (no quota, every model, any IP). */
export interface KeyFields extends BudgetInput {
  group?: string;
  name?: string | null;
  quota_tokens?: number | null;
  /** ISO 8601; a past time makes the key expired. */
  expires_at?: string | null;
  models?: string[] | null;
  allow_ips?: string[] | null;
  admin?: boolean;
}

/** A key to make, for an account. */
export interface NewKeyInput extends KeyFields {
  account: string;
}

/** A change to a key: any of its fields, and whether it is enabled. */
export interface KeyUpdate extends KeyFields {
  enabled?: boolean;
}

/** The key operations of the admin service. */
export interface KeyAdmin {
  /** Keys, oldest first; one account's when `account` is given (404 if it does not exist). */
  list(filter?: { account?: string }): Promise<KeyJson[]>;
  /** The key of that id; 404 if none. */
  get(id: string): Promise<KeyJson>;
  /** Makes a key in group "default" unless told otherwise; only the secret's hash is stored. */
  create(input: NewKeyInput): Promise<CreatedKeyJson>;
  /** Changes a key; 409 for a revoked one (but disabling it again). */
  update(id: string, changes: KeyUpdate): Promise<UpdatedKeyJson>;
  /** Revokes a key for good: it can never be enabled again. */
  revoke(id: string): Promise<KeyJson>;
}

const iso = (ms: number | null) => ms === null ? null : new Date(ms).toISOString();

/** The record `key list --json` prints. */
export function keyJson(key: KeyWithAccountName): KeyJson {
  return {
    id: key.id,
    account: key.account_name,
    group: key.group_name,
    name: key.name,
    prefix: key.prefix,
    enabled: key.enabled === 1,
    revoked: key.revoked === 1,
    expires_at: iso(key.expires_at),
    quota_tokens: key.quota_tokens,
    used_tokens: key.used_tokens,
    models: jsonList(key.models),
    allow_ips: jsonList(key.allow_ips),
    admin: key.admin === 1,
    created_at: new Date(key.created_at).toISOString(),
    last_used_at: iso(key.last_used_at),
  };
}

/** The key operations over `deps`. */
export function keyAdmin(deps: AdminDeps): KeyAdmin {
  const { queries } = deps;
  /** The record with its budget, as the config in force says it. */
  const json = (key: KeyWithAccountName): KeyJson => {
    const config = deps.config();
    const fallback = config.groups[key.group_name]?.key_budget;
    return { ...keyJson(key), ...budgetJson(key, fallback, config, deps.now()) };
  };
  /** The budget columns `fields` change, from the key's setting and its group's default. */
  const budgetOf = (fields: BudgetInput, key: KeyWithAccountName | undefined, group: string) =>
    budgetChanges(
      fields,
      key ? ownBudgetOf(key) : { mode: null, micros: null, period: null },
      deps.config().groups[group]?.key_budget,
    );
  /** `fields` checked, as a key grant names them; `action` names the operation in messages. */
  const checked = (fields: KeyFields, action: string): Partial<KeyGrant> => {
    const grant: Partial<KeyGrant> = {};
    if (fields.group !== undefined) grant.group = groupOf(fields.group, action);
    if (fields.name !== undefined) {
      grant.name = fields.name === null ? null : nameField("name", fields.name);
    }
    if (fields.quota_tokens !== undefined) {
      grant.quotaTokens = fields.quota_tokens === null
        ? null
        : tokensField("quota_tokens", fields.quota_tokens);
    }
    if (fields.expires_at !== undefined) {
      grant.expiresAt = fields.expires_at === null
        ? null
        : timeField("expires_at", fields.expires_at);
    }
    if (fields.models !== undefined) {
      grant.models = fields.models === null ? null : namesField("models", fields.models);
    }
    if (fields.allow_ips !== undefined) {
      grant.allowIps = fields.allow_ips === null ? null : cidrsField("allow_ips", fields.allow_ips);
    }
    if (fields.admin !== undefined) grant.admin = fields.admin;
    return grant;
  };
  const groupOf = (group: string, action: string) => {
    const groups = Object.keys(deps.config().groups);
    if (groups.includes(group)) return group;
    const known = groups.map((name) => `"${name}"`).join(", ");
    const where = deps.configPath ? ` in "${deps.configPath}"` : " in the config";
    throw invalidField(
      "group",
      `${action} failed: group "${group}" is not defined${where}; ` +
        (known ? `use one of ${known} or add [groups.${group}].` : `add [groups.${group}].`),
    );
  };
  const warningsOf = (grant: Partial<KeyGrant>) =>
    modelWarnings(deps.config(), grant.models, deps.configPath);
  const find = async (id: string, verb: string) => {
    const [key] = await listKeys(await queries(), { id });
    if (key === undefined) {
      throw notFound(`${verb} key "${id}" failed: there is no such key; see "tollgate key list".`);
    }
    return json(key);
  };
  return {
    async list(filter = {}) {
      const db = await queries();
      const account = filter.account;
      if (account !== undefined && !(await findAccountByName(db, account))) {
        throw notFound(
          `Listing keys failed: account "${account}" does not exist; see "tollgate account list".`,
        );
      }
      return (await listKeys(db, { accountName: account })).map(json);
    },
    get: (id) => find(id, "Reading"),
    async create(input) {
      const grant = checked({ ...input, group: input.group ?? "default" }, "Creating key");
      const db = await queries();
      const account = await findAccountByName(db, input.account);
      if (account === undefined) {
        throw notFound(
          `Creating key failed: account "${input.account}" does not exist; ` +
            `create it with "tollgate account create ${input.account}".`,
        );
      }
      const budget = budgetOf(input, undefined, grant.group!);
      const { key, secret } = await issueKey(db, {
        ...grant,
        accountId: account.id,
        group: grant.group!,
        createdAt: deps.now(),
      });
      if (budget) await updateKey(db, key.id, budget);
      return {
        id: key.id,
        key: secret,
        account: account.name,
        group: key.group_name,
        name: key.name,
        quota_tokens: key.quota_tokens,
        expires_at: iso(key.expires_at),
        warnings: warningsOf(grant),
      };
    },
    async update(id, changes) {
      const { enabled, ...fields } = changes;
      const onlyEnabled = enabled !== undefined &&
        Object.values(fields).every((value) => value === undefined);
      const verb = onlyEnabled ? (enabled ? "Enabling" : "Disabling") : "Updating";
      const grant = checked(fields, `${verb} key "${id}"`);
      const columns = keyChanges(grant);
      if (enabled !== undefined) columns.enabled = enabled ? 1 : 0;
      const db = await queries();
      if (fields.budget_usd !== undefined || fields.budget_period !== undefined) {
        const [current] = await listKeys(db, { id });
        if (current === undefined) {
          throw notFound(
            `${verb} key "${id}" failed: there is no such key; see "tollgate key list".`,
          );
        }
        Object.assign(columns, budgetOf(fields, current, columns.group_name ?? current.group_name));
      }
      // Disabling a revoked key is harmless (it is disabled already), so only that goes
      // through; any other change of one is refused.
      const result = onlyEnabled
        ? await setKeyEnabled(db, id, enabled!)
        : await updateKey(db, id, columns);
      if (result === "revoked") {
        throw conflict(
          `${verb} key "${id}" failed: the key is revoked, which is final; create a new key instead.`,
        );
      }
      return { ...await find(id, verb), warnings: warningsOf(grant) };
    },
    async revoke(id) {
      if (!(await revokeKey(await queries(), id))) {
        throw notFound(
          `Revoking key "${id}" failed: there is no such key; see "tollgate key list".`,
        );
      }
      return await find(id, "Revoking");
    },
  };
}

/** The columns a key update writes of `grant`'s fields. */
function keyChanges(grant: Partial<KeyGrant>): KeyChanges {
  const changes: KeyChanges = {};
  if (grant.group !== undefined) changes.group_name = grant.group;
  if (grant.name !== undefined) changes.name = grant.name;
  if (grant.quotaTokens !== undefined) changes.quota_tokens = grant.quotaTokens;
  if (grant.expiresAt !== undefined) changes.expires_at = grant.expiresAt;
  if (grant.models !== undefined) changes.models = jsonText(grant.models);
  if (grant.allowIps !== undefined) changes.allow_ips = jsonText(grant.allowIps);
  if (grant.admin !== undefined) changes.admin = grant.admin ? 1 : 0;
  return changes;
}

const jsonText = (list: string[] | null) => list === null ? null : JSON.stringify(list);

/** A stored JSON array column as strings, or null when unrestricted. */
function jsonList(value: string | null): string[] | null {
  if (value === null) return null;
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) ? parsed.map(String) : null;
}
