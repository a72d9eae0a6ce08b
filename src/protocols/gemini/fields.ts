/**
 * Reading a Gemini request's proto fields. Google's JSON parsers take a field under its
 * JSON name (`systemInstruction`) or its proto name (`system_instruction`): the SDKs send
 * the first, the API reference's curl examples often the second, so both are read.
 */
import { asRecord } from "../json_read.ts";

const SNAKE = new Map<string, string>();

/** The proto (snake_case) name of a JSON (lowerCamelCase) field name. */
export function snakeName(name: string): string {
  let snake = SNAKE.get(name);
  if (snake === undefined) {
    snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    SNAKE.set(name, snake);
  }
  return snake;
}

/** The JSON (lowerCamelCase) name of a field given under its proto name (`system_instruction`). */
export function camelName(name: string): string {
  return name.includes("_")
    ? name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase())
    : name;
}

/** The field `name` (its JSON name) of `record`, under either name; undefined when absent or null. */
export function field(record: Record<string, unknown> | undefined, name: string): unknown {
  if (!record) return undefined;
  const value = record[name] ?? record[snakeName(name)];
  return value === null ? undefined : value;
}

/** The field as an object, or undefined. */
export function objectField(
  record: Record<string, unknown> | undefined,
  name: string,
): Record<string, unknown> | undefined {
  return asRecord(field(record, name));
}

/** The field as a finite number, or undefined. */
export function numberField(
  record: Record<string, unknown> | undefined,
  name: string,
): number | undefined {
  const value = field(record, name);
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The field as a string, or "". */
export function stringField(record: Record<string, unknown> | undefined, name: string): string {
  const value = field(record, name);
  return typeof value === "string" ? value : "";
}
