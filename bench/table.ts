/** The bench's table layout and number formats, shared by every section of the report. */

/** Milliseconds with two decimals. */
export const ms = (value: number): string => value.toFixed(2);

/** A figure with `digits` decimals, or `n/a` when it could not be measured. */
export const opt = (value: number | undefined, digits = 0): string =>
  value === undefined ? "n/a" : value.toFixed(digits);

/** KiB as MiB with one decimal, or `n/a`. */
export const mib = (kib: number | undefined): string =>
  kib === undefined ? "n/a" : (kib / 1024).toFixed(1);

/** A signed percentage with one decimal (`-1.2%`). */
export const percent = (fraction: number): string => `${(fraction * 100).toFixed(1)}%`;

/** ` (N errors)` when a phase had errors, else nothing. */
export const errors = (result: { errors: number }): string =>
  result.errors > 0 ? ` (${result.errors} errors)` : "";

/** A plain-text table: the first column left-aligned, the others right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
