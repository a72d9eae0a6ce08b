/** `tollgate account ...`: create, top up, enable, disable and list accounts. */
import { formatUsd, microsToUsd } from "../billing/money.ts";
import { createAccount, listAccounts, setAccountEnabled, topUpAccount } from "../db/accounts.ts";
import type { Account } from "../db/schema.ts";
import {
  type CliContext,
  CONFIG_OPTION,
  dispatch,
  expectPositionals,
  parseCommandArgs,
  withDatabase,
} from "./context.ts";
import { formatTable, printJson, usageError, userError } from "./output.ts";
import { parseUsdArg } from "./values.ts";

/** Usage lines of the `account` command group. */
export const ACCOUNT_USAGE = [
  "tollgate account create NAME [--balance USD | --unlimited]",
  "tollgate account topup NAME USD",
  "tollgate account disable|enable NAME",
  "tollgate account list [--json]",
].join("\n");

/** Runs `account <subcommand> ...`; returns the exit status. */
export function runAccountCommand(args: string[], ctx: CliContext): Promise<number> {
  return dispatch(args, ctx, "account", ACCOUNT_USAGE, {
    create: createCommand,
    topup: topUpCommand,
    enable: (rest) => setEnabledCommand(rest, ctx, true),
    disable: (rest) => setEnabledCommand(rest, ctx, false),
    list: listCommand,
  });
}

async function createCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = {
    ...CONFIG_OPTION,
    balance: { type: "string" },
    unlimited: { type: "boolean" },
  } as const;
  const { values, positionals } = parseCommandArgs(args, options, ACCOUNT_USAGE);
  const [name = ""] = expectPositionals(positionals, ["NAME"], ACCOUNT_USAGE);
  if (name.trim() === "") throw usageError("Invalid NAME: give a non-empty name", ACCOUNT_USAGE);
  if (values.balance !== undefined && values.unlimited) {
    throw usageError("Give either --balance or --unlimited, not both", ACCOUNT_USAGE);
  }
  const balanceMicros = values.balance === undefined
    ? 0
    : parseUsdArg(values.balance, "--balance", ACCOUNT_USAGE);
  const unlimited = values.unlimited ?? false;
  const account = await withDatabase(
    ctx,
    values.config,
    ({ db }) => createAccount(db.kysely, { name, balanceMicros, unlimited, createdAt: ctx.now() }),
  );
  if (account === undefined) {
    throw userError(
      `Creating account "${name}" failed: the name is taken; choose another or top up "${name}".`,
    );
  }
  ctx.io.stdout(
    unlimited
      ? `Created account "${name}" (unlimited).`
      : `Created account "${name}" with balance ${formatUsd(balanceMicros)} USD.`,
  );
  return 0;
}

async function topUpCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, CONFIG_OPTION, ACCOUNT_USAGE);
  const [name = "", usd = ""] = expectPositionals(positionals, ["NAME", "USD"], ACCOUNT_USAGE);
  const micros = parseUsdArg(usd, "USD amount", ACCOUNT_USAGE);
  if (micros === 0) throw usageError("Invalid USD amount: give an amount above 0", ACCOUNT_USAGE);
  const account = await withDatabase(
    ctx,
    values.config,
    ({ db }) => topUpAccount(db.kysely, name, micros),
  );
  if (account === undefined) throw unknownAccount("Topping up", name);
  ctx.io.stdout(
    `Topped up account "${name}" by ${formatUsd(micros)} USD; ` +
      `balance is now ${formatUsd(account.balance_micros)} USD.`,
  );
  return 0;
}

async function setEnabledCommand(
  args: string[],
  ctx: CliContext,
  enabled: boolean,
): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, CONFIG_OPTION, ACCOUNT_USAGE);
  const [name = ""] = expectPositionals(positionals, ["NAME"], ACCOUNT_USAGE);
  const found = await withDatabase(
    ctx,
    values.config,
    ({ db }) => setAccountEnabled(db.kysely, name, enabled),
  );
  if (!found) throw unknownAccount(enabled ? "Enabling" : "Disabling", name);
  ctx.io.stdout(`${enabled ? "Enabled" : "Disabled"} account "${name}".`);
  return 0;
}

async function listCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = { ...CONFIG_OPTION, json: { type: "boolean" } } as const;
  const { values, positionals } = parseCommandArgs(args, options, ACCOUNT_USAGE);
  expectPositionals(positionals, [], ACCOUNT_USAGE);
  const accounts = await withDatabase(ctx, values.config, ({ db }) => listAccounts(db.kysely));
  if (values.json) {
    printJson(ctx.io, accounts.map(accountJson));
    return 0;
  }
  if (accounts.length === 0) {
    ctx.io.stdout('No accounts yet; create one with "tollgate account create NAME".');
    return 0;
  }
  ctx.io.stdout(formatTable(
    ["NAME", "STATUS", "BALANCE_USD", "HELD_USD", "AVAILABLE_USD"],
    accounts.map((account) => [
      account.name,
      account.enabled ? "enabled" : "disabled",
      formatUsd(account.balance_micros),
      formatUsd(account.held_micros),
      account.unlimited ? "unlimited" : formatUsd(availableMicros(account)),
    ]),
    ["left", "left", "right", "right", "right"],
  ));
  return 0;
}

/** The stable `account list --json` record (design.md); money as USD numbers. */
function accountJson(account: Account) {
  return {
    name: account.name,
    enabled: account.enabled === 1,
    unlimited: account.unlimited === 1,
    balance_usd: microsToUsd(account.balance_micros),
    held_usd: microsToUsd(account.held_micros),
    // A number even when unlimited, so the field keeps one type; `unlimited` says the rest.
    available_usd: microsToUsd(availableMicros(account)),
  };
}

function availableMicros(account: Account): number {
  return account.balance_micros - account.held_micros;
}

function unknownAccount(action: string, name: string) {
  return userError(
    `${action} account "${name}" failed: there is no such account; see "tollgate account list".`,
  );
}
