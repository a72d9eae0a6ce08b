/**
 * Histogram observations counted in plain arrays, one per label set (`series`): an
 * observation is a bucket search and three additions. prom-client renders them only
 * when scraped (counted_histogram.ts), so a gateway nobody scrapes never loads it.
 */

/** One label set's observations. */
export interface HistogramSeries {
  observe(value: number): void;
}

/** What one label set has counted. */
export interface SeriesCounts {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  buckets: number[];
  sum: number;
  count: number;
}

/** A histogram's definition and its series' counts. */
export class HistogramCounts<T extends string> {
  readonly name: string;
  readonly help: string;
  readonly bounds: readonly number[];
  readonly labelNames: readonly T[];
  /** The series by their label values, in `labelNames` order. */
  readonly #series = new Map<string, HistogramSeries & { counts: SeriesCounts }>();

  constructor(
    definition: { name: string; help: string; labelNames: readonly T[]; buckets: number[] },
  ) {
    this.name = definition.name;
    this.help = definition.help;
    this.bounds = [...definition.buckets];
    this.labelNames = definition.labelNames;
  }

  /** The series of one label set (the same one for the same values); callers may keep it. */
  series(labels: Record<T, string>): HistogramSeries {
    const key = this.labelNames.map((name) => labels[name]).join("\u0000");
    const found = this.#series.get(key);
    if (found) return found;
    const counts: SeriesCounts = {
      labels: { ...labels },
      buckets: new Array(this.bounds.length + 1).fill(0),
      sum: 0,
      count: 0,
    };
    const bounds = this.bounds;
    const series = {
      counts,
      observe(value: number) {
        let index = 0;
        while (index < bounds.length && value > bounds[index]!) index++;
        counts.buckets[index]!++;
        counts.sum += value;
        counts.count++;
      },
    };
    this.#series.set(key, series);
    return series;
  }

  /** Every label set's counts, in the order they were first bound. */
  *counts(): Iterable<SeriesCounts> {
    for (const series of this.#series.values()) yield series.counts;
  }
}
