/**
 * Accounts: list, create (with a balance or unlimited), top up, adjust, enable and disable,
 * budgets, and the history of top-ups and adjustments.
 */
import { microsToUsd } from "../billing/money.ts";
import { accountEntries, moveBalance, setAccountBudget } from "../db/account_entries.ts";
import { rearmFloors } from "../db/budget_thresholds.ts";
import { budgetSettings } from "../billing/budgets.ts";
import {
  budgetChanges,
  type BudgetInput,
  type BudgetJson,
  budgetJson,
  ownBudgetOf,
} from "./budgets.ts";
import {
  createAccount,
  findAccountByName,
  listAccounts,
  setAccountEnabled,
} from "../db/accounts.ts";
import type { Account } from "../db/schema.ts";
import { conflict, invalidField, notFound } from "./errors.ts";
import { nameField, usdField } from "./fields.ts";
import type { AdminDeps } from "./deps.ts";

/** An account as `account list --json` shows it (design.md); money as USD numbers. */
export interface AccountJson extends Partial<BudgetJson> {
  name: string;
  enabled: boolean;
  unlimited: boolean;
  balance_usd: number;
  held_usd: number;
  /** Balance minus held: a number even when unlimited, so the field keeps one type. */
  available_usd: number;
}

/** One top-up or adjustment, as `account history --json` shows it. */
export interface AccountEntryJson {
  at: string;
  kind: "topup" | "adjust";
  usd: number;
  reason: string | null;
  balance_usd: number;
}

/** A new account: a starting balance in USD, or unlimited (never debited). */
export interface NewAccountInput extends BudgetInput {
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
  /** Adds `usd` (above 0) to the balance, with an optional reason kept in its history. */
  topUp(name: string, input: { usd: number | string; reason?: string }): Promise<AccountJson>;
  /**
   * A signed correction (a refund, a credit) with its reason: never below what the
   * account's holds need (so never below zero); an unlimited account's is only recorded.
   */
  adjust(name: string, input: { usd: number | string; reason: string }): Promise<AccountJson>;
  /** Its top-ups and adjustments, oldest first. */
  history(name: string): Promise<AccountEntryJson[]>;
  /** Enables or disables the account (its keys stop working within 2 seconds); its budget. */
  update(name: string, changes: { enabled?: boolean } & BudgetInput): Promise<AccountJson>;
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
  /** The record with its budget, as the config in force says it. */
  const json = (account: Account): AccountJson => {
    const config = deps.config();
    return {
      ...accountJson(account),
      ...budgetJson(account, config.budgets.account, config, deps.now()),
    };
  };
  /** The floors still announced after a top-up or a credit (the others re-armed). */
  const floorAfter = (available: number, announced: number | null) =>
    rearmFloors(available, announced, budgetSettings(deps.config()).floors);
  const move = async (
    name: string,
    kind: "topup" | "adjust",
    micros: number,
    reason: string | null,
  ) => {
    const verb = kind === "topup" ? "Topping up" : "Adjusting";
    const result = await moveBalance(await queries(), {
      name,
      kind,
      micros,
      reason,
      at: deps.now(),
      floorAfter,
    });
    if (!result.ok && result.reason === "not_found") throw noSuchAccount(verb, name);
    if (!result.ok) {
      const { balance_micros: balance, held_micros: held } = result.account;
      throw invalidField(
        "usd",
        `${verb} account "${name}" failed: it would take the available balance below zero ` +
          `(balance $${microsToUsd(balance)}, held $${microsToUsd(held)}); ` +
          `adjust by at most -${microsToUsd(Math.max(0, balance - held))}.`,
      );
    }
    return json(result.account);
  };
  return {
    async list() {
      return (await listAccounts(await queries())).map(json);
    },
    async get(name) {
      const account = await findAccountByName(await queries(), name);
      if (account === undefined) throw noSuchAccount("Reading", name);
      return json(account);
    },
    async create(input) {
      const name = nameField("name", input.name);
      if (input.balance_usd !== undefined && input.unlimited) {
        throw invalidField("unlimited", "Give either balance_usd or unlimited, not both.");
      }
      const balanceMicros = input.balance_usd === undefined
        ? 0
        : usdField("balance_usd", input.balance_usd);
      const budget = budgetChanges(
        input,
        { mode: null, micros: null, period: null },
        deps.config().budgets.account,
      );
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
      if (budget) {
        await setAccountBudget(await queries(), name, budget);
        return json({ ...account, ...budget });
      }
      return json(account);
    },
    async topUp(name, { usd, reason }) {
      const micros = usdField("usd", usd, { positive: true });
      return await move(name, "topup", micros, reasonField(reason, false));
    },
    async adjust(name, { usd, reason }) {
      const text = typeof usd === "string" ? usd.trim() : usd;
      const negative = typeof text === "number" ? text < 0 : text.startsWith("-");
      const magnitude = typeof text === "number" ? Math.abs(text) : text.replace(/^[-+]/, "");
      const micros = usdField("usd", magnitude, { positive: true });
      return await move(name, "adjust", negative ? -micros : micros, reasonField(reason, true));
    },
    async history(name) {
      const db = await queries();
      const account = await findAccountByName(db, name);
      if (account === undefined) throw noSuchAccount("Reading the history of", name);
      return (await accountEntries(db, account.id)).map((entry) => ({
        at: new Date(Number(entry.created_at)).toISOString(),
        kind: entry.kind as "topup" | "adjust",
        usd: microsToUsd(Number(entry.usd_micros)),
        reason: entry.reason,
        balance_usd: microsToUsd(Number(entry.balance_micros)),
      }));
    },
    async update(name, changes) {
      const db = await queries();
      if (changes.enabled !== undefined && !(await setAccountEnabled(db, name, changes.enabled))) {
        throw noSuchAccount(changes.enabled ? "Enabling" : "Disabling", name);
      }
      const before = await findAccountByName(db, name);
      if (before === undefined) throw noSuchAccount("Updating", name);
      const budget = budgetChanges(changes, ownBudgetOf(before), deps.config().budgets.account);
      if (budget) await setAccountBudget(db, name, budget);
      const account = await findAccountByName(db, name);
      if (account === undefined) throw noSuchAccount("Updating", name);
      return json(account);
    },
  };
}

/** The 404 of an account name that does not exist, for `action` ("Topping up"). */
export function noSuchAccount(action: string, name: string) {
  return notFound(
    `${action} account "${name}" failed: there is no such account; see "tollgate account list".`,
  );
}

/** A reason: trimmed text, required for an adjustment; null when none was given. */
function reasonField(value: string | undefined, required: boolean): string | null {
  const reason = typeof value === "string" ? value.trim() : "";
  if (reason === "" && required) {
    throw invalidField("reason", "Invalid reason: say why the balance is corrected.");
  }
  return reason === "" ? null : reason.slice(0, 500);
}
