/**
 * Which limits apply to a request, read from the config: the key's (its group's `rpm`,
 * `tpm`, `concurrency`), its account's (`account_rpm`, ...) and the model's (`rpm`,
 * `tpm` under `[models."m"]`). Shared by every limiter implementation.
 */
import type { Principal } from "../auth/principal.ts";
import type { Config } from "../config/schema.ts";

/** The three kinds of limit a scope may have. */
export type LimitKind = "rpm" | "tpm" | "concurrency";

/** One counted thing (a key, an account or a model) and its limits. */
export interface LimitedScope {
  /** What the counts are kept under: `key:<id>`, `account:<id>` or `model:<name>`. */
  id: string;
  /** How messages name it, e.g. `key key_abc`. */
  label: string;
  /** The config setting of a limit, for messages: what the operator would raise. */
  setting(kind: LimitKind): string;
  rpm?: number;
  tpm?: number;
  concurrency?: number;
}

const NONE: readonly LimitedScope[] = Object.freeze([]);

/** The limited scopes of a request, key first; empty (and allocation-free) when none applies. */
export function scopesOf(
  config: Config,
  principal: Principal,
  model: string,
): readonly LimitedScope[] {
  const group = config.groups[principal.group];
  const modelConfig = config.models[model];
  const keyLimited = group !== undefined &&
    (group.rpm ?? group.tpm ?? group.concurrency) !== undefined;
  const accountLimited = group !== undefined &&
    (group.account_rpm ?? group.account_tpm ?? group.account_concurrency) !== undefined;
  const modelLimited = modelConfig !== undefined &&
    (modelConfig.rpm ?? modelConfig.tpm) !== undefined;
  if (!keyLimited && !accountLimited && !modelLimited) return NONE;

  const scopes: LimitedScope[] = [];
  const section = `[groups.${principal.group}]`;
  if (keyLimited) {
    scopes.push({
      id: `key:${principal.id}`,
      label: `key ${principal.id}`,
      setting: (kind) => `${section} ${kind}`,
      rpm: group.rpm,
      tpm: group.tpm,
      concurrency: group.concurrency,
    });
  }
  if (accountLimited) {
    scopes.push({
      id: `account:${principal.accountId}`,
      label: `account "${principal.accountName}"`,
      setting: (kind) => `${section} account_${kind}`,
      rpm: group.account_rpm,
      tpm: group.account_tpm,
      concurrency: group.account_concurrency,
    });
  }
  if (modelLimited) {
    scopes.push({
      id: `model:${model}`,
      label: `model "${model}"`,
      setting: (kind) => `[models."${model}"] ${kind}`,
      rpm: modelConfig.rpm,
      tpm: modelConfig.tpm,
    });
  }
  return scopes;
}
