/**
 * A stacked bar chart as inline SVG, drawn on the server: one bar per time bucket, one
 * colour per series (a model). The SVG stretches to its panel's width; its labels are HTML
 * around it, so they stay legible at any width: values on the y-axis (0, half and the top
 * of a rounded scale, with gridlines), times under the bars (equal-width cells, one a bar),
 * and every bar's figures in a table below, so that nothing needs a hover to be read.
 */
import type { FC } from "hono/jsx";

/** One series of the stack: a figure per bucket, in the buckets' order. */
export interface Stack {
  label: string;
  values: number[];
  /** A colour that means something (served, failed), in place of the series' own. */
  tone?: "good" | "bad" | "muted";
}

/** How many colours the stylesheet has (classes c0 ... c5); more series share the last. */
const COLOURS = 6;
const BAR_STEP = 10;
const BAR_WIDTH = 8;
const HEIGHT = 100;
/** Times written under the bars at most; every other one is left out on a phone. */
const TICKS = 7;
/** The figures table starts open when it has this many rows or fewer. */
const OPEN_ROWS = 10;

/** What a chart is drawn from. */
export interface ChartProps {
  /** The buckets' first milliseconds. */
  times: number[];
  stacks: Stack[];
  /** Writes a figure (an axis value, a bar's). */
  format: (value: number) => string;
  /** Names a bucket in full (the table, the titles) and briefly (under its bar). */
  when: (t: number) => string;
  tick: (t: number) => string;
  label: string;
  /** What one bucket is ("hour", "day"), for the table's name. */
  per: string;
  /** Figures are whole numbers (the scale's half is then one too). */
  whole?: boolean;
  /** What the series are, for the table's column ("By model"). */
  by?: string;
}

/** The chart of `stacks` over the buckets starting at `times`. */
export const StackedBars: FC<ChartProps> = (props) => {
  const { times, stacks, format, when, tick, label } = props;
  const totals = times.map((_, index) =>
    stacks.reduce((sum, stack) => sum + (stack.values[index] ?? 0), 0)
  );
  const max = Math.max(0, ...totals);
  if (times.length === 0 || max === 0) {
    return <p class="muted">Nothing in this range yet.</p>;
  }
  const top = niceTop(max, props.whole ?? false);
  const scale = HEIGHT / top;
  const width = times.length * BAR_STEP;
  const highest = totals.indexOf(max);
  const step = Math.max(1, Math.ceil(times.length / TICKS));
  const ticks = [format(top), format(top / 2), format(0)];
  const colour = (series: number) =>
    stacks[series]?.tone ? `tone-${stacks[series]!.tone}` : `c${Math.min(series, COLOURS - 1)}`;
  return (
    <figure class="panel" aria-label={label}>
      <div class="chart-head">
        <strong>{label}</strong>
        <span class="muted" data-highest>
          highest: {format(max)} ({when(times[highest]!)})
        </span>
      </div>
      <div class="plot">
        <div class="y-axis" aria-hidden="true" data-widest={widest(ticks)}>
          {ticks.map((tick) => <span>{tick}</span>)}
        </div>
        <svg
          class="chart"
          viewBox={`0 0 ${width} ${HEIGHT}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={`${label}: ${times.length} bars, the highest ${format(max)}`}
        >
          {[0, HEIGHT / 2].map((y) => (
            <line class="grid" x1="0" x2={width} y1={y} y2={y} vector-effect="non-scaling-stroke" />
          ))}
          {times.map((t, index) => {
            let y = HEIGHT;
            return stacks.map((stack, series) => {
              const value = stack.values[index] ?? 0;
              if (value <= 0) return null;
              const height = value * scale;
              y -= height;
              return (
                <rect
                  class={colour(series)}
                  x={index * BAR_STEP + (BAR_STEP - BAR_WIDTH) / 2}
                  y={round(y)}
                  width={BAR_WIDTH}
                  height={round(height)}
                >
                  <title>{`${when(t)} · ${stack.label}: ${format(value)}`}</title>
                </rect>
              );
            });
          })}
        </svg>
        <span></span>
        <div class="x-axis" aria-hidden="true">
          {times.map((t, index) => {
            const shown = index % step === 0;
            const minor = shown && (index / step) % 2 === 1;
            return <span class={minor ? "minor" : undefined}>{shown ? tick(t) : ""}</span>;
          })}
        </div>
      </div>
      <ul class="legend">
        {stacks.map((stack, series) => (
          <li>
            <span class={`swatch ${colour(series)}`}></span>
            {stack.label}
          </li>
        ))}
      </ul>
      <FiguresOfBars {...props} totals={totals} />
    </figure>
  );
};

/** Each bar's figures as a table: the bucket, its total and its parts by series. */
const FiguresOfBars: FC<ChartProps & { totals: number[] }> = (
  { times, stacks, format, when, per, totals, by = "By model" },
) => {
  const rows = times.flatMap((_, index) => totals[index]! > 0 ? [index] : []);
  return (
    <details class="figures" open={rows.length <= OPEN_ROWS}>
      <summary>
        Each {per}'s figures ({rows.length} of {times.length} with any)
      </summary>
      <table class="stack" aria-label={`Each ${per}'s figures`}>
        <thead>
          <tr>
            <th>{per === "hour" ? "Hour" : "Day"}</th>
            <th class="num">Total</th>
            <th>{by}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((index) => (
            <tr>
              <td data-label={per === "hour" ? "Hour" : "Day"}>{when(times[index]!)}</td>
              <td class="num" data-label="Total">{format(totals[index]!)}</td>
              <td class="wrap" data-label={by}>
                {stacks.filter((stack) => (stack.values[index] ?? 0) > 0)
                  .map((stack) => `${stack.label} ${format(stack.values[index]!)}`)
                  .join(" · ")}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
};

/**
 * The top of the scale: the least of 1, 2, 4, 6, 8 and 10 times a power of ten at or above
 * `max`, so that it and its half read plainly; at least 2 for whole numbers.
 */
export function niceTop(max: number, whole: boolean): number {
  const power = 10 ** Math.floor(Math.log10(max));
  const top = [1, 2, 4, 6, 8, 10].map((step) => step * power).find((value) => value >= max)!;
  return whole ? Math.max(2, Math.ceil(top)) : top;
}

/** The longest of `texts`, which sizes the y-axis' column. */
function widest(texts: string[]): string {
  return texts.reduce((a, b) => b.length > a.length ? b : a, "");
}

/** Three decimals are plenty for a 100-unit-high drawing. */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
