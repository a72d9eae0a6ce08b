/**
 * Reasoning effort (OpenAI `reasoning_effort`, `reasoning.effort`) and thinking budgets
 * (Anthropic `thinking.budget_tokens`), mapped both ways. docs/translation.md has the table.
 */
import type { IrEffort } from "./ir.ts";

/** The thinking budget an effort asks for. Anthropic's minimum budget is 1,024 tokens. */
export const BUDGET_BY_EFFORT: Readonly<Record<IrEffort, number>> = {
  minimal: 1_024,
  low: 4_000,
  medium: 10_000,
  high: 32_000,
};

// Efforts beyond the IR's range (OpenAI's `xhigh`, Anthropic's `max`) fold onto its top.
const EFFORT_BY_NAME: Readonly<Record<string, IrEffort>> = {
  minimal: "minimal",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "high",
  max: "high",
};

/** The IR effort a client names (`reasoning_effort`, `reasoning.effort`, `output_config.effort`). */
export function effortNamed(name: string): IrEffort | undefined {
  return EFFORT_BY_NAME[name];
}

/** The effort a thinking budget stands for: the nearest of low, medium and high. */
export function effortOfBudget(budget: number): IrEffort {
  if (budget < 7_000) return "low";
  if (budget < 21_000) return "medium";
  return "high";
}

/** The budget for an effort, kept below `maxTokens` as Anthropic requires (never under 1,024). */
export function budgetFor(effort: IrEffort, maxTokens: number): number {
  return Math.max(1_024, Math.min(BUDGET_BY_EFFORT[effort], maxTokens - 1));
}
