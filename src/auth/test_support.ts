/** What unit tests of authenticated steps share. */
import type { Principal } from "./principal.ts";

/** An enabled, unlimited key of enabled account 1 in group `default`; `overrides` change it. */
export function testPrincipal(overrides: Partial<Principal> = {}): Principal {
  return {
    id: "key_1",
    accountId: 1,
    accountName: "a",
    accountEnabled: true,
    unlimited: true,
    group: "default",
    enabled: true,
    revoked: false,
    expiresAt: null,
    quotaTokens: null,
    usedTokens: 0,
    models: null,
    allowIps: null,
    admin: false,
    ...overrides,
  };
}
