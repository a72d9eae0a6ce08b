/**
 * `tollgate account update|adjust|history`: an account's budget, a signed correction of its
 * balance with a reason, and its top-ups and adjustments.
 */
import type { AccountEntryJson } from "../admin/accounts.ts";
import { formatUsd } from "../billing/money.ts";
import { withAdmin } from "./admin_session.ts";
import { type Command, JSON_FLAG, subcommand } from "./command.ts";
import { BUDGET_FLAGS, budgetFields } from "./budget_flags.ts";
import { formatTable, printJson, usageError, usdText } from "./output.ts";
import { parseUsdArg } from "./values.ts";

const update = subcommand({
  usage: "tollgate account update NAME [--budget USD|none|default] " +
    "[--budget-period day|week|month|total]",
  summary: "Changes an account's budget: its own, none at all, or the config's default again.",
  positionals: ["NAME"],
  flags: { ...BUDGET_FLAGS, json: { type: "boolean", help: "print the account as JSON" } },
  async run({ values, positionals: [name = ""] }, ctx) {
    const fields = budgetFields(values, update.usage);
    if (Object.keys(fields).length === 0) {
      throw usageError("Nothing to change: give --budget or --budget-period", update.usage);
    }
    const account = await withAdmin(
      ctx,
      values.config,
      (admin) => admin.accounts.update(name, fields),
    );
    if (values.json) printJson(ctx.io, account);
    else {
      ctx.io.stdout(
        account.budget_usd == null
          ? `Account "${name}" has no budget.`
          : `Account "${name}" has a budget of ${usdText(account.budget_usd)} USD a ` +
            `${account.budget_period} (${account.budget_source}).`,
      );
    }
    return 0;
  },
});

const adjust = subcommand({
  usage: "tollgate account adjust NAME USD --reason TEXT",
  summary: "Corrects a balance by a signed amount (a refund, a credit), with its reason, " +
    "never below zero.",
  positionals: ["NAME", "USD"],
  flags: { reason: { type: "string", value: "TEXT", help: "why (kept in the history)" } },
  async run({ values, positionals: [name = "", usd = ""] }, ctx) {
    const usage = adjust.usage;
    if (values.reason === undefined || values.reason.trim() === "") {
      throw usageError("Missing option --reason TEXT", usage);
    }
    const micros = parseUsdArg(usd.replace(/^[-+]/, ""), "USD amount", usage);
    if (micros === 0) throw usageError("Invalid USD amount: give an amount other than 0", usage);
    const account = await withAdmin(
      ctx,
      values.config,
      (admin) => admin.accounts.adjust(name, { usd, reason: values.reason! }),
    );
    ctx.io.stdout(
      `Adjusted account "${name}" by ${usd.startsWith("-") ? "-" : ""}${formatUsd(micros)} USD; ` +
        (account.unlimited
          ? "it is unlimited, so only its history records it."
          : `balance is now ${usdText(account.balance_usd)} USD.`),
    );
    return 0;
  },
});

const history = subcommand({
  usage: "tollgate account history NAME [--json]",
  summary: "Lists an account's top-ups and adjustments with their reasons, oldest first.",
  positionals: ["NAME"],
  flags: { json: JSON_FLAG },
  async run({ values, positionals: [name = ""] }, ctx) {
    const entries = await withAdmin(ctx, values.config, (admin) => admin.accounts.history(name));
    if (values.json) {
      printJson(ctx.io, entries);
      return 0;
    }
    if (entries.length === 0) {
      ctx.io.stdout(`Account "${name}" has had no top-up or adjustment.`);
      return 0;
    }
    ctx.io.stdout(formatTable(
      ["AT", "KIND", "USD", "BALANCE_USD", "REASON"],
      entries.map((entry: AccountEntryJson) => [
        entry.at,
        entry.kind,
        usdText(entry.usd),
        usdText(entry.balance_usd),
        entry.reason ?? "-",
      ]),
      ["left", "left", "right", "right", "left"],
    ));
    return 0;
  },
});

/** The account subcommands of budgets and corrections. */
export const ACCOUNT_MONEY_COMMANDS = { update, adjust, history };

/**
 * The `account` group, with a negative amount of `account adjust` taken as an argument
 * rather than a flag (`account adjust team -5 --reason ...`).
 */
export function withNegativeAmounts(command: Command): Command {
  return {
    ...command,
    run(args, ctx) {
      if (args[0] !== "adjust") return command.run(args, ctx);
      const negative = args.findIndex((arg, i) => i > 0 && /^-\d/.test(arg));
      if (negative < 0) return command.run(args, ctx);
      const rest = args.filter((_, i) => i !== negative);
      return command.run([...rest, "--", args[negative]!], ctx);
    },
  };
}
