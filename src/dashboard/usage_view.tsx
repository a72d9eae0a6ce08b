/**
 * The parts of a usage page that the overview, a key's, an account's and a model's pages
 * and a key's own page share: the range picker, the totals, the chart stacked by model,
 * and tables of figures by a name (a model, a key, an account) that link to its page.
 */
import type { Child, FC } from "hono/jsx";
import type { UsageCounts, UsageRowJson } from "../admin/usage.ts";
import { StackedBars } from "./chart.tsx";
import { Usd, useZone } from "./figures.tsx";
import { count, duration, percent, usd } from "./format.ts";
import { type Metric, RANGES, type UsageView } from "./usage_range.ts";
import { ModelLink } from "./figures.tsx";

const METRICS: Record<Metric, { label: string; format: (value: number) => string }> = {
  cost: { label: "Spend", format: (micros) => usd(micros / 1e6) },
  requests: { label: "Requests", format: count },
  tokens: { label: "Tokens (input + output)", format: count },
};

/** A page's URL with `params` in its query (empty ones left out). */
export function withQuery(path: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams(
    Object.entries(params).filter((entry): entry is [string, string] => !!entry[1]),
  ).toString();
  return query ? `${path}?${query}` : path;
}

/**
 * The range picker: preset ranges and figures as links, chosen days as a form (a GET: the
 * page's URL says what it shows), the range's bounds in the viewer's zone, which it names.
 * `keep` holds the query parameters the page keeps (a filter by key, account or model).
 */
export const RangeForm: FC<{ view: UsageView; action: string; keep?: Record<string, string> }> = (
  { view, action, keep = {} },
) => {
  const { range } = view;
  const zone = range.zone;
  const metric = range.metric === "cost" ? undefined : range.metric;
  const lastDay = Math.max(range.since, range.until - 1);
  return (
    <section class="range panel" aria-label="Range">
      <nav class="choices" aria-label="Ranges">
        {Object.entries(RANGES).map(([name, label]) => (
          <a
            href={withQuery(action, { ...keep, range: name, metric })}
            aria-current={range.name === name ? "true" : undefined}
          >
            {label}
          </a>
        ))}
      </nav>
      <form method="get" action={action} class="days" aria-label="Chosen days">
        {Object.entries(keep).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        {metric && <input type="hidden" name="metric" value={metric} />}
        <label>
          From
          <input type="date" name="from" value={zone.date(range.since)} required />
        </label>
        <label>
          To
          <input type="date" name="to" value={zone.date(lastDay)} required />
        </label>
        <button type="submit" class="plain">Show these days</button>
      </form>
      <nav class="choices" aria-label="Chart">
        {Object.entries(METRICS).map(([name, { label }]) => (
          <a
            href={withQuery(action, {
              ...keep,
              ...rangeParams(view),
              metric: name === "cost" ? undefined : name,
            })}
            aria-current={range.metric === name ? "true" : undefined}
          >
            {label}
          </a>
        ))}
      </nav>
      <p
        class="muted"
        data-since={new Date(range.since).toISOString()}
        data-until={new Date(range.until).toISOString()}
        data-zone={zone.name}
      >
        {range.name === "custom" ? "Chosen days" : RANGES[range.name]}: {zone.dateTime(range.since)}
        {" "}
        to {zone.dateTime(range.until)}, times in{" "}
        <span data-zone-label>{zone.label(range.until)}</span>
      </p>
    </section>
  );
};

/** The query parameters that name the view's range again (a preset's name, or its bounds). */
export function rangeParams(view: UsageView): Record<string, string> {
  const { range } = view;
  if (range.name !== "custom") return { range: range.name };
  return {
    since: new Date(range.since).toISOString(),
    until: new Date(range.until).toISOString(),
  };
}

/**
 * The range's totals, each figure named by `data-figure` as the API names it; the errors
 * lead to the failed requests of the range.
 */
export const Totals: FC<{ view: UsageView }> = ({ view }) => {
  const { totals } = view.report;
  const { scope, range } = view;
  const listed = (status: string) =>
    withQuery("/admin/requests", {
      ...scope,
      status,
      since: new Date(range.since).toISOString(),
      until: new Date(range.until).toISOString(),
    });
  const failed = listed("failed");
  const stat = (figure: string, label: string, value: Child, note?: string) => (
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
      {stat("cost_usd", "Spend", <Usd amount={totals.cost_usd} />)}
      {stat("requests", "Requests", count(totals.requests))}
      {stat("input_tokens", "Input tokens", count(totals.input_tokens))}
      {stat("output_tokens", "Output tokens", count(totals.output_tokens))}
      {stat("cached_tokens", "Cached tokens", count(totals.cached_tokens))}
      {stat("cache_hit", "Cache hits", percent(totals.cached_tokens, totals.input_tokens))}
      {stat(
        "errors",
        "Errors",
        totals.errors > 0 ? <a href={failed}>{count(totals.errors)}</a> : count(totals.errors),
        percent(totals.errors, totals.requests),
      )}
      {stat(
        "refused",
        "Refused",
        view.refused > 0 ? <a href={listed("refused")}>{count(view.refused)}</a> : "0",
        "no ledger row",
      )}
      {stat("p50_ms", "Median latency", duration(view.latency.p50_ms))}
    </dl>
  );
};

/** The chart of the view's figure, stacked by model, its times in the viewer's zone. */
export const UsageChart: FC<{ view: UsageView }> = ({ view }) => {
  const zone = useZone();
  const metric = METRICS[view.range.metric];
  const hourly = view.range.bucket === "hour";
  return (
    <StackedBars
      times={view.times}
      stacks={view.stacks}
      format={metric.format}
      when={(t) => hourly ? zone.dateTime(t) : zone.day(t)}
      tick={(t) => hourly ? zone.clock(t) : zone.day(t).slice(4)}
      per={hourly ? "hour" : "day"}
      whole={view.range.metric !== "cost"}
      label={`${metric.label} per ${hourly ? "hour" : "day"}, by model`}
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

/**
 * A table of figures by a name (first columns, `head` names them); on a phone each row is
 * a card that keeps every column, labelled.
 */
export const FiguresTable: FC<{
  caption: string;
  head: string[];
  rows: { cells: Child[]; figures: UsageCounts; name?: string }[];
}> = ({ caption, head, rows }) => (
  <div class="table-frame">
    <table class="stack" aria-label={caption}>
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
        {rows.map(({ cells, figures, name }) => (
          <tr data-row={name}>
            {cells.map((cell, index) => (
              <td data-label={head[index]} class={index === 0 ? "title" : undefined}>{cell}</td>
            ))}
            <td class="num" data-label="Requests">{count(figures.requests)}</td>
            <td class="num" data-label="Input">{count(figures.input_tokens)}</td>
            <td class="num" data-label="Output">{count(figures.output_tokens)}</td>
            <td class="num" data-label="Cached">{count(figures.cached_tokens)}</td>
            <td class="num" data-label="Errors">{count(figures.errors)}</td>
            <td class="num" data-label="Spend">
              <Usd amount={figures.cost_usd} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

/** The view's figures by model, each model to its page (`linked`: an admin's view). */
export const ByModelTable: FC<{ view: UsageView; linked?: boolean }> = ({ view, linked }) => (
  <FiguresTable
    caption="Usage by model over the range"
    head={["Model"]}
    rows={sumBy(view.report.rows, (row) => row.model).map(([model, figures]) => ({
      name: model,
      cells: [linked ? <ModelLink name={model} /> : model],
      figures,
    }))}
  />
);
