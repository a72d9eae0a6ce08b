/**
 * The parts of a usage page that the overview and a key's own page share: the range form,
 * the totals, the chart stacked by model, and the table by model.
 */
import type { FC } from "hono/jsx";
import type { UsageCounts, UsageRowJson } from "../admin/usage.ts";
import { StackedBars } from "./chart.tsx";
import { count, duration, percent, time, usd } from "./format.ts";
import { type Metric, RANGES, type UsageView } from "./usage_range.ts";

const METRICS: Record<Metric, { label: string; format: (value: number) => string }> = {
  cost: { label: "Spend", format: (micros) => usd(micros / 1e6) },
  requests: { label: "Requests", format: count },
  tokens: { label: "Tokens (input + output)", format: count },
};

/** The range and figure picker (a GET form: the page's URL says what it shows). */
export const RangeForm: FC<{ view: UsageView; action: string }> = ({ view, action }) => {
  const { range } = view;
  return (
    <form method="get" action={action} class="range" aria-label="Range">
      <label>
        Range
        <select name="range" data-submit>
          {Object.entries(RANGES).map(([name, preset]) => (
            <option value={name} selected={range.name === name}>{preset.label}</option>
          ))}
        </select>
      </label>
      <label>
        Chart
        <select name="metric" data-submit>
          {Object.entries(METRICS).map(([name, metric]) => (
            <option value={name} selected={range.metric === name}>{metric.label}</option>
          ))}
        </select>
      </label>
      <button type="submit" class="plain">Show</button>
      <span class="muted" data-since={range.since} data-until={range.until}>
        {time(range.since)} to {time(range.until)} UTC
      </span>
    </form>
  );
};

/** The range's totals, each figure named by `data-figure` as the API names it. */
export const Totals: FC<{ view: UsageView }> = ({ view }) => {
  const { totals } = view.report;
  const stat = (figure: string, label: string, value: string, note?: string) => (
    <div class="stat" data-figure={figure}>
      <dt>{label}</dt>
      <dd>
        {value}
        {note && <small>{` (${note})`}</small>}
      </dd>
    </div>
  );
  return (
    <dl class="stats">
      {stat("cost_usd", "Spend", usd(totals.cost_usd))}
      {stat("requests", "Requests", count(totals.requests))}
      {stat("input_tokens", "Input tokens", count(totals.input_tokens))}
      {stat("output_tokens", "Output tokens", count(totals.output_tokens))}
      {stat("cached_tokens", "Cached tokens", count(totals.cached_tokens))}
      {stat("cache_hit", "Cache hits", percent(totals.cached_tokens, totals.input_tokens))}
      {stat("errors", "Errors", count(totals.errors), percent(totals.errors, totals.requests))}
      {stat("p50_ms", "Median latency", duration(view.latency.p50_ms))}
    </dl>
  );
};

/** The chart of the view's figure, stacked by model. */
export const UsageChart: FC<{ view: UsageView }> = ({ view }) => {
  const metric = METRICS[view.range.metric];
  const per = view.range.bucket === "hour" ? "hour" : "day";
  return (
    <StackedBars
      times={view.times}
      stacks={view.stacks}
      format={metric.format}
      label={`${metric.label} per ${per}, by model`}
    />
  );
};

/** Figures summed over the rows that share a name (a model, a key, an account). */
export function sumBy(rows: UsageRowJson[], name: (row: UsageRowJson) => string) {
  const sums = new Map<string, UsageCounts & { rows: UsageRowJson[] }>();
  for (const row of rows) {
    const key = name(row);
    const sum = sums.get(key) ?? {
      requests: 0,
      input_tokens: 0,
      output_tokens: 0,
      cached_tokens: 0,
      cache_write_tokens: 0,
      errors: 0,
      cost_usd: 0,
      rows: [],
    };
    sum.requests += row.requests;
    sum.input_tokens += row.input_tokens;
    sum.output_tokens += row.output_tokens;
    sum.cached_tokens += row.cached_tokens;
    sum.cache_write_tokens += row.cache_write_tokens;
    sum.errors += row.errors;
    // Summed in micro-USD, whole numbers, then back: no float drift in the table.
    sum.cost_usd = Math.round(sum.cost_usd * 1e6 + row.cost_usd * 1e6) / 1e6;
    sum.rows.push(row);
    sums.set(key, sum);
  }
  return [...sums].sort((a, b) => b[1].cost_usd - a[1].cost_usd || b[1].requests - a[1].requests);
}

/** A table of figures by a name (first column) with optional extra columns before them. */
export const FiguresTable: FC<{
  caption: string;
  head: string[];
  rows: { cells: (string | number)[]; figures: UsageCounts }[];
}> = ({ caption, head, rows }) => (
  <div class="table-frame">
    <table aria-label={caption}>
      <thead>
        <tr>
          {head.map((name) => <th>{name}</th>)}
          <th class="num">Requests</th>
          <th class="num">Input</th>
          <th class="num">Output</th>
          <th class="num">Cached</th>
          <th class="num">Errors</th>
          <th class="num">Spend</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colspan={head.length + 6} class="muted">No usage in this range.</td>
          </tr>
        )}
        {rows.map(({ cells, figures }) => (
          <tr>
            {cells.map((cell) => <td>{cell}</td>)}
            <td class="num">{count(figures.requests)}</td>
            <td class="num">{count(figures.input_tokens)}</td>
            <td class="num">{count(figures.output_tokens)}</td>
            <td class="num">{count(figures.cached_tokens)}</td>
            <td class="num">{count(figures.errors)}</td>
            <td class="num">{usd(figures.cost_usd)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

/** The view's figures by model. */
export const ByModelTable: FC<{ view: UsageView }> = ({ view }) => (
  <FiguresTable
    caption="Usage by model over the range"
    head={["Model"]}
    rows={sumBy(view.report.rows, (row) => row.model).map(([model, figures]) => ({
      cells: [model],
      figures,
    }))}
  />
);
