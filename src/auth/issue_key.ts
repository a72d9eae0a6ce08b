/** Issues an API key: a fresh secret shown once, and only its hash stored. */
import { createKey } from "../db/keys.ts";
import type { ApiKey, Queries } from "../db/schema.ts";
import { generateKeyId, generateKeySecret, hashKeySecret, keyPrefix } from "./keys.ts";

/** What a new key is for and how it is limited. */
export interface KeyGrant {
  accountId: number;
  group: string;
  name?: string | null;
  quotaTokens?: number | null;
  expiresAt?: number | null;
  models?: string[] | null;
  allowIps?: string[] | null;
  /** Whether the key may use the admin API and the dashboard (the first-run key does). */
  admin?: boolean;
  createdAt: number;
}

/** Stores a new key and returns its row with the secret, which exists nowhere else. */
export async function issueKey(
  db: Queries,
  grant: KeyGrant,
): Promise<{ key: ApiKey; secret: string }> {
  const secret = generateKeySecret();
  const key = await createKey(db, {
    id: generateKeyId(),
    hash: hashKeySecret(secret),
    prefix: keyPrefix(secret),
    account_id: grant.accountId,
    group_name: grant.group,
    name: grant.name ?? null,
    enabled: 1,
    revoked: 0,
    expires_at: grant.expiresAt ?? null,
    quota_tokens: grant.quotaTokens ?? null,
    models: grant.models ? JSON.stringify(grant.models) : null,
    allow_ips: grant.allowIps ? JSON.stringify(grant.allowIps) : null,
    admin: grant.admin ? 1 : 0,
    created_at: grant.createdAt,
  });
  return { key, secret };
}
