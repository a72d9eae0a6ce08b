/**
 * Budgets in force (design.md "Budgets"): a key's or an account's own budget replaces the
 * config's default (a group's `key_budget`, `[budgets] account`), `none` means no budget;
 * what a hold and a settlement are judged against, and the 403 `budget_exceeded` that
 * names the budget, what is left and when it renews.
 */
import type { Principal } from "../auth/principal.ts";
import type { Config } from "../config/schema.ts";
import type { BudgetConfig } from "../config/budgets_schema.ts";
import { GatewayError } from "../errors.ts";
import type { HoldBudgets, SettleBudgets } from "../db/store.ts";
import { type BudgetLimit, thresholdLevels } from "../db/budget_thresholds.ts";
import { type BudgetPeriod, type PeriodBounds, periodCalendar } from "../clock/budget_period.ts";
import { timeZone } from "../clock/time_zone.ts";
import { formatUsd, usdToMicros } from "./money.ts";

/** A key's or an account's own budget setting: null mode follows the config's default. */
export interface OwnBudget {
  mode: "own" | "none" | null;
  micros: number | null;
  period: string | null;
}

/** The budget in force and where it comes from. */
export interface BudgetInForce {
  micros: number;
  period: BudgetPeriod;
  source: "own" | "default";
}

/** The budget in force of a scope: its own, else the default; null: none. */
export function budgetInForce(
  own: OwnBudget | undefined,
  fallback: BudgetConfig | undefined,
): BudgetInForce | null {
  return ownOrDefault(own, defaultBudget(fallback));
}

/** A default of the config as a budget in force. */
function defaultBudget(fallback: BudgetConfig | undefined): BudgetInForce | undefined {
  return fallback &&
    { micros: usdToMicros(fallback.usd), period: fallback.period, source: "default" };
}

/** A scope's own budget, else `fallback` (not copied); null: none. */
function ownOrDefault(
  own: OwnBudget | undefined,
  fallback: Readonly<BudgetInForce> | undefined,
): BudgetInForce | null {
  if (own?.mode === "none") return null;
  if (own?.mode === "own" && own.micros !== null) {
    return { micros: own.micros, period: (own.period ?? "month") as BudgetPeriod, source: "own" };
  }
  return fallback ?? null;
}

/**
 * What a config says of budgets, derived once per config object: the defaults already in
 * micro-USD, since parsing the config's decimal on each request was nearly half of what budgets
 * cost a request (bench/README.md "Budgets and alerts on the request path").
 */
interface BudgetSettings {
  periodOf: (period: BudgetPeriod, at: number) => PeriodBounds;
  levels: readonly number[];
  floors: readonly number[];
  keyDefaults: Map<string, Readonly<BudgetInForce> | undefined>;
  accountDefault: Readonly<BudgetInForce> | undefined;
}

const settingsByConfig = new WeakMap<Config, BudgetSettings>();

/** The budget settings of `config`. */
export function budgetSettings(config: Config): BudgetSettings {
  let settings = settingsByConfig.get(config);
  if (!settings) {
    settings = {
      periodOf: periodCalendar(timeZone(config.budgets.timezone)),
      levels: thresholdLevels(config.alerts.thresholds),
      floors: config.alerts.balance_below_usd.map((usd) => usdToMicros(usd)),
      keyDefaults: new Map(
        Object.entries(config.groups).map(([name, { key_budget }]) => [
          name,
          defaultBudget(key_budget),
        ]),
      ),
      accountDefault: defaultBudget(config.budgets.account),
    };
    settingsByConfig.set(config, settings);
  }
  return settings;
}

/** A budget in force as a limit of the period that contains `at`. */
export function limitAt(
  budget: BudgetInForce,
  settings: BudgetSettings,
  at: number,
): BudgetLimit {
  const { start, end } = settings.periodOf(budget.period, at);
  return { micros: budget.micros, period: budget.period, start, end };
}

/** The key's and its account's budgets in force, as limits at `at`. */
export function budgetLimits(config: Config, principal: Principal, at: number) {
  const settings = budgetSettings(config);
  const key = ownOrDefault(principal.budget, settings.keyDefaults.get(principal.group));
  const account = ownOrDefault(principal.accountBudget, settings.accountDefault);
  return {
    settings,
    key: key ? limitAt(key, settings, at) : undefined,
    account: account ? limitAt(account, settings, at) : undefined,
  };
}

/** The budgets a hold is checked against; undefined when none is in force. */
export function holdBudgetsOf(
  config: Config,
  principal: Principal,
  at: number,
): HoldBudgets | undefined {
  const { settings, key, account } = budgetLimits(config, principal, at);
  if (!key && !account) return undefined;
  return { key, account, levels: settings.levels };
}

/** What a settlement judges budgets and balance floors against; undefined when nothing. */
export function settleBudgetsOf(
  config: Config,
  principal: Principal,
  at: number,
): SettleBudgets | undefined {
  const { settings, key, account } = budgetLimits(config, principal, at);
  const floors = principal.unlimited ? [] : settings.floors;
  if (!key && !account && floors.length === 0) return undefined;
  return { key, account, levels: settings.levels, floors };
}

/** How a budget reads in a sentence: "$50.00 a month", "$10.00 in all". */
export function describeBudget(limit: { micros: number; period: BudgetPeriod }): string {
  const per = { day: "a day", week: "a week", month: "a month", total: "in all" }[limit.period];
  return `$${formatUsd(limit.micros)} ${per}`;
}

/** When a budget renews, in a sentence's words. */
export function renewsText(end: number | null): string {
  return end === null ? "it never renews" : `it renews at ${new Date(end).toISOString()}`;
}

/** The 403 of a hold that would pass a budget. */
export function budgetExceeded(
  scope: "key" | "account",
  limit: BudgetLimit,
  availableMicros: number,
  costMicros: number,
  principal: Principal,
): GatewayError {
  const whose = scope === "key" ? `key ${principal.id}` : `account "${principal.accountName}"`;
  const raise = scope === "key"
    ? `tollgate key update ${principal.id} --budget USD`
    : `tollgate account update ${principal.accountName} --budget USD`;
  return new GatewayError(
    403,
    "budget_exceeded",
    `Budget exceeded: this request may cost up to $${formatUsd(costMicros)} but the ` +
      `${scope} budget of ${whose} (${describeBudget(limit)}) has $${
        formatUsd(availableMicros)
      } left; ${renewsText(limit.end)}. Lower max_tokens, wait for the budget to renew, or ` +
      `ask the operator to raise it (\`${raise}\`).`,
  );
}
