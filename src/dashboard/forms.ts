/**
 * The dashboard's HTML forms as the admin service's inputs: the fields carry the API's
 * names, an empty field is "not given" (or, when editing a key, "none": no quota, every
 * model, any address, no expiry), and lists are written with commas or spaces.
 */
import type { NewAccountInput } from "../admin/accounts.ts";
import { invalidField } from "../admin/errors.ts";
import type { KeyFields } from "../admin/keys.ts";
import type { BudgetInput } from "../admin/budgets.ts";
import type { Context } from "hono";
import { bodyLimits, readBody } from "../api/body.ts";
import type { GatewayEnv } from "../api/request_context.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";

/** A form's fields, from a urlencoded body read within the request's limits. */
export async function readForm(
  c: Context<GatewayEnv>,
  clock: AlarmClock,
): Promise<URLSearchParams> {
  const bytes = await readBody(c.req.raw, bodyLimits(c.var.snapshot.config), clock);
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

/** The form's fields as an object, for showing them again after a refusal. */
export function formValues(form: URLSearchParams): Record<string, string> {
  return Object.fromEntries(form);
}

/**
 * A key's fields from its form; `clearing`: an empty field removes the limit (an edit of an
 * existing key) rather than leaving it out (a new key).
 */
export function keyFieldsOf(form: URLSearchParams, clearing: boolean): KeyFields {
  const empty = clearing ? null : undefined;
  const fields: KeyFields = {
    group: given(form, "group"),
    name: given(form, "name") ?? empty,
    quota_tokens: wholeNumber(form, "quota_tokens") ?? empty,
    expires_at: given(form, "expires_at") ?? empty,
    models: list(form, "models") ?? empty,
    allow_ips: list(form, "allow_ips") ?? empty,
    admin: form.has("admin"),
    ...budgetOf(form, clearing),
  };
  return fields;
}

/**
 * A budget from its fields: an amount, "none" (no budget), or empty for the default (when
 * editing: back to it; when creating: not given).
 */
export function budgetOf(form: URLSearchParams, clearing: boolean): BudgetInput {
  const text = given(form, "budget_usd");
  const period = given(form, "budget_period");
  const input: BudgetInput = {};
  if (text === undefined) {
    if (clearing) input.budget_usd = "default";
    return input;
  }
  input.budget_usd = text === "none" ? null : text === "default" ? "default" : text;
  if (period !== undefined && typeof input.budget_usd === "string" && text !== "default") {
    input.budget_period = period;
  }
  return input;
}

/** A new account from its form. */
export function accountOf(form: URLSearchParams): NewAccountInput {
  return {
    name: form.get("name") ?? "",
    balance_usd: given(form, "balance_usd"),
    unlimited: form.has("unlimited") || undefined,
    ...budgetOf(form, false),
  };
}

/** A field's trimmed text; undefined when empty. */
export function given(form: URLSearchParams, name: string): string | undefined {
  const value = form.get(name)?.trim();
  return value ? value : undefined;
}

function list(form: URLSearchParams, name: string): string[] | undefined {
  const items = given(form, name)?.split(/[\s,]+/).filter(Boolean);
  return items && items.length > 0 ? items : undefined;
}

function wholeNumber(form: URLSearchParams, name: string): number | undefined {
  const text = given(form, name)?.replaceAll(/[_,\s]/g, "");
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text)) {
    throw invalidField(name, `Invalid ${name} "${text}": give a whole number of tokens.`);
  }
  return Number(text);
}
