/**
 * A stacked bar chart as inline SVG, drawn on the server: one bar per time bucket, one
 * colour per series (a model). The SVG stretches to its panel's width; its labels are HTML
 * around it, so they stay legible at any width. Each segment's `<title>` tells its figure.
 */
import type { FC } from "hono/jsx";
import { time } from "./format.ts";

/** One series of the stack: a figure per bucket, in the buckets' order. */
export interface Stack {
  label: string;
  values: number[];
}

/** How many colours the stylesheet has (classes c0 ... c5); more series share the last. */
const COLOURS = 6;
const BAR_STEP = 10;
const BAR_WIDTH = 8;
const HEIGHT = 100;

/** The chart of `stacks` over the buckets starting at `times`; `format` writes a figure. */
export const StackedBars: FC<{
  times: string[];
  stacks: Stack[];
  format: (value: number) => string;
  label: string;
}> = ({ times, stacks, format, label }) => {
  const totals = times.map((_, index) =>
    stacks.reduce((sum, stack) => sum + (stack.values[index] ?? 0), 0)
  );
  const max = Math.max(0, ...totals);
  if (times.length === 0 || max === 0) {
    return <p class="muted">Nothing in this range yet.</p>;
  }
  const scale = HEIGHT / max;
  const width = times.length * BAR_STEP;
  return (
    <figure class="panel" aria-label={label}>
      <div class="chart-head">
        <strong>{label}</strong>
        <span class="muted">highest bar: {format(max)}</span>
      </div>
      <svg
        class="chart"
        viewBox={`0 0 ${width} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${label}, ${times.length} bars`}
      >
        {times.map((t, index) => {
          let top = HEIGHT;
          return stacks.map((stack, series) => {
            const value = stack.values[index] ?? 0;
            if (value <= 0) return null;
            const height = value * scale;
            top -= height;
            return (
              <rect
                class={`c${Math.min(series, COLOURS - 1)}`}
                x={index * BAR_STEP + (BAR_STEP - BAR_WIDTH) / 2}
                y={round(top)}
                width={BAR_WIDTH}
                height={round(height)}
              >
                <title>{`${time(t)} · ${stack.label}: ${format(value)}`}</title>
              </rect>
            );
          });
        })}
      </svg>
      <div class="axis">
        <span>{time(times[0]!)}</span>
        <span>{time(times.at(-1)!)}</span>
      </div>
      <ul class="legend">
        {stacks.map((stack, series) => (
          <li>
            <span class={`swatch c${Math.min(series, COLOURS - 1)}`}></span>
            {stack.label}
          </li>
        ))}
      </ul>
    </figure>
  );
};

/** Three decimals are plenty for a 100-unit-high drawing. */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
