/** Accounts: list, create (with a balance or unlimited), top up, enable and disable. */
import { microsToUsd } from "../billing/money.ts";
import {
  createAccount,
  findAccountByName,
  listAccounts,
  setAccountEnabled,
  topUpAccount,
} from "../db/accounts.ts";
import type { Account } from "../db/schema.ts";
import { conflict, invalidField, notFound } from "./errors.ts";
import { nameField, usdField } from "./fields.ts";
import type { AdminDeps } from "./deps.ts";

/** An account as `account list --json` shows it (design.md); money as USD numbers. */
export interface AccountJson {
  name: string;
  enabled: boolean;
  unlimited: boolean;
  balance_usd: number;
  held_usd: number;
  /** Balance minus held: a number even when unlimited, so the field keeps one type. */
  available_usd: number;
}

/** A new account: a starting balance in USD, or unlimited (never debited). */
export interface NewAccountInput {
  name: string;
  balance_usd?: number | string;
  unlimited?: boolean;
}

/** The account operations of the admin service. */
export interface AccountAdmin {
  /** Every account, by name. */
  list(): Promise<AccountJson[]>;
  /** The account of that name; 404 if none. */
  get(name: string): Promise<AccountJson>;
  /** Creates an enabled account; 409 when the name is taken. */
  create(input: NewAccountInput): Promise<AccountJson>;
  /** Adds `usd` (above 0) to the balance. */
  topUp(name: string, input: { usd: number | string }): Promise<AccountJson>;
  /** Enables or disables the account (its keys stop working within 2 seconds). */
  update(name: string, changes: { enabled?: boolean }): Promise<AccountJson>;
}

/** The record `account list --json` prints. */
export function accountJson(account: Account): AccountJson {
  return {
    name: account.name,
    enabled: account.enabled === 1,
    unlimited: account.unlimited === 1,
    balance_usd: microsToUsd(account.balance_micros),
    held_usd: microsToUsd(account.held_micros),
    available_usd: microsToUsd(account.balance_micros - account.held_micros),
  };
}

/** The account operations over `deps`. */
export function accountAdmin(deps: AdminDeps): AccountAdmin {
  const { queries } = deps;
  return {
    async list() {
      return (await listAccounts(await queries())).map(accountJson);
    },
    async get(name) {
      const account = await findAccountByName(await queries(), name);
      if (account === undefined) throw noSuchAccount("Reading", name);
      return accountJson(account);
    },
    async create(input) {
      const name = nameField("name", input.name);
      if (input.balance_usd !== undefined && input.unlimited) {
        throw invalidField("unlimited", "Give either balance_usd or unlimited, not both.");
      }
      const balanceMicros = input.balance_usd === undefined
        ? 0
        : usdField("balance_usd", input.balance_usd);
      const account = await createAccount(await queries(), {
        name,
        balanceMicros,
        unlimited: input.unlimited ?? false,
        createdAt: deps.now(),
      });
      if (account === undefined) {
        throw conflict(
          `Creating account "${name}" failed: the name is taken; choose another or top up "${name}".`,
        );
      }
      return accountJson(account);
    },
    async topUp(name, { usd }) {
      const micros = usdField("usd", usd, { positive: true });
      const account = await topUpAccount(await queries(), name, micros);
      if (account === undefined) throw noSuchAccount("Topping up", name);
      return accountJson(account);
    },
    async update(name, changes) {
      const db = await queries();
      if (changes.enabled !== undefined && !(await setAccountEnabled(db, name, changes.enabled))) {
        throw noSuchAccount(changes.enabled ? "Enabling" : "Disabling", name);
      }
      const account = await findAccountByName(db, name);
      if (account === undefined) throw noSuchAccount("Updating", name);
      return accountJson(account);
    },
  };
}

/** The 404 of an account name that does not exist, for `action` ("Topping up"). */
export function noSuchAccount(action: string, name: string) {
  return notFound(
    `${action} account "${name}" failed: there is no such account; see "tollgate account list".`,
  );
}
