/** `tollgate account ...`: create, top up, enable, disable and list accounts. */
import type { AccountJson } from "../admin/accounts.ts";
import { formatUsd } from "../billing/money.ts";
import { withAdmin } from "./admin_session.ts";
import { type Command, group, JSON_FLAG, subcommand } from "./command.ts";
import { formatTable, printJson, usageError, usdText } from "./output.ts";
import { parseUsdArg } from "./values.ts";
import { ACCOUNT_MONEY_COMMANDS, withNegativeAmounts } from "./account_money.ts";
import { BUDGET_FLAGS, budgetFields } from "./budget_flags.ts";

const create = subcommand({
  usage: "tollgate account create NAME [--balance USD | --unlimited] [--budget USD] " +
    "[--budget-period day|week|month|total]",
  summary: "Creates an account, with a starting balance or unlimited (never debited).",
  positionals: ["NAME"],
  flags: {
    balance: { type: "string", value: "USD", help: "starting balance in USD (default 0)" },
    unlimited: { type: "boolean", help: "never debit the account; its requests are still priced" },
    ...BUDGET_FLAGS,
  },
  async run({ values, positionals: [name = ""] }, ctx) {
    const usage = create.usage;
    if (name.trim() === "") throw usageError("Invalid NAME: give a non-empty name", usage);
    if (values.balance !== undefined && values.unlimited) {
      throw usageError("Give either --balance or --unlimited, not both", usage);
    }
    if (values.balance !== undefined) parseUsdArg(values.balance, "--balance", usage);
    const account = await withAdmin(ctx, values.config, (admin) =>
      admin.accounts.create({
        name,
        balance_usd: values.balance,
        unlimited: values.unlimited,
        ...budgetFields(values, usage),
      }));
    ctx.io.stdout(
      account.unlimited
        ? `Created account "${account.name}" (unlimited).`
        : `Created account "${account.name}" with balance ${usdText(account.balance_usd)} USD.`,
    );
    return 0;
  },
});

const topUp = subcommand({
  usage: "tollgate account topup NAME USD [--reason TEXT]",
  summary: "Adds USD to an account's balance (kept in its history with the reason).",
  positionals: ["NAME", "USD"],
  flags: { reason: { type: "string", value: "TEXT", help: "why (kept in the history)" } },
  async run({ values, positionals: [name = "", usd = ""] }, ctx) {
    const micros = parseUsdArg(usd, "USD amount", topUp.usage);
    if (micros === 0) throw usageError("Invalid USD amount: give an amount above 0", topUp.usage);
    const account = await withAdmin(
      ctx,
      values.config,
      (admin) => admin.accounts.topUp(name, { usd, reason: values.reason }),
    );
    ctx.io.stdout(
      `Topped up account "${name}" by ${formatUsd(micros)} USD; ` +
        `balance is now ${usdText(account.balance_usd)} USD.`,
    );
    return 0;
  },
});

/** `account enable NAME` or `account disable NAME`. */
function setEnabled(enabled: boolean) {
  return subcommand({
    usage: "tollgate account disable|enable NAME",
    summary: enabled
      ? "Enables an account: its keys work again within 2 seconds."
      : "Disables an account: its keys stop working within 2 seconds.",
    positionals: ["NAME"],
    flags: {},
    async run({ values, positionals: [name = ""] }, ctx) {
      await withAdmin(ctx, values.config, (admin) => admin.accounts.update(name, { enabled }));
      ctx.io.stdout(`${enabled ? "Enabled" : "Disabled"} account "${name}".`);
      return 0;
    },
  });
}

const list = subcommand({
  usage: "tollgate account list [--json]",
  summary:
    "Lists the accounts with their balance, what is held for requests in flight, and what is available.",
  flags: { json: JSON_FLAG },
  async run({ values }, ctx) {
    const accounts = await withAdmin(ctx, values.config, (admin) => admin.accounts.list());
    if (values.json) {
      printJson(ctx.io, accounts);
      return 0;
    }
    if (accounts.length === 0) {
      ctx.io.stdout('No accounts yet; create one with "tollgate account create NAME".');
      return 0;
    }
    ctx.io.stdout(formatTable(
      ["NAME", "STATUS", "BALANCE_USD", "HELD_USD", "AVAILABLE_USD"],
      accounts.map((account: AccountJson) => [
        account.name,
        account.enabled ? "enabled" : "disabled",
        usdText(account.balance_usd),
        usdText(account.held_usd),
        account.unlimited ? "unlimited" : usdText(account.available_usd),
      ]),
      ["left", "left", "right", "right", "right"],
    ));
    return 0;
  },
});

/** The `account` command group. */
export const ACCOUNT_COMMAND: Command = withNegativeAmounts(group("account", {
  create,
  topup: topUp,
  ...ACCOUNT_MONEY_COMMANDS,
  enable: setEnabled(true),
  disable: setEnabled(false),
  list,
}));
