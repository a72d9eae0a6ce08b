/**
 * A prom-client histogram whose observations are counted in plain arrays, one per label
 * set (`series`, kept by the histogram): an observation is a bucket search and three
 * additions, where
 * prom-client's own `observe` copies, checks and hashes the labels every time (most of
 * what the metrics cost a request). prom-client still renders the exposition.
 */
import { Histogram, type HistogramConfiguration, type MetricType } from "prom-client";

/** One label set's observations. */
export interface HistogramSeries {
  observe(value: number): void;
}

interface Counts {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  buckets: number[];
  sum: number;
  count: number;
}

type Exposed = Awaited<ReturnType<Histogram<string>["get"]>>;

/** A histogram with bound, allocation-free series. */
export class CountedHistogram<T extends string> extends Histogram<T> {
  readonly #name: string;
  readonly #help: string;
  readonly #bounds: number[];
  readonly #labelNames: readonly T[];
  /** The series by their label values, in `labelNames` order. */
  readonly #series = new Map<string, HistogramSeries & { counts: Counts }>();

  constructor(configuration: HistogramConfiguration<T> & { buckets: number[] }) {
    super(configuration);
    this.#name = configuration.name;
    this.#help = configuration.help;
    this.#bounds = [...configuration.buckets];
    this.#labelNames = configuration.labelNames ?? [];
  }

  /** The series of one label set (the same one for the same values); callers may keep it. */
  series(labels: Record<T, string>): HistogramSeries {
    const key = this.#labelNames.map((name) => labels[name]).join("\u0000");
    const found = this.#series.get(key);
    if (found) return found;
    const counts: Counts = {
      labels: { ...labels },
      buckets: new Array(this.#bounds.length + 1).fill(0),
      sum: 0,
      count: 0,
    };
    const bounds = this.#bounds;
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

  /** The exposition's values, as prom-client's own histogram gives them. */
  override get(): Promise<Exposed> {
    const bucketName = `${this.#name}_bucket`;
    const values: Exposed["values"] = [];
    for (const { counts: { labels, buckets, sum, count } } of this.#series.values()) {
      // As in prom-client, a label set appears once it has an observation.
      if (count === 0) continue;
      let cumulative = 0;
      this.#bounds.forEach((bound, index) => {
        cumulative += buckets[index]!;
        values.push({
          labels: { le: bound, ...labels },
          value: cumulative,
          metricName: bucketName,
        });
      });
      values.push({ labels: { le: "+Inf", ...labels }, value: count, metricName: bucketName });
      values.push({ labels, value: sum, metricName: `${this.#name}_sum` });
      values.push({ labels, value: count, metricName: `${this.#name}_count` });
    }
    return Promise.resolve({
      name: this.#name,
      help: this.#help,
      // The exposition's type name; prom-client's typings declare a numeric enum here.
      type: "histogram" as unknown as MetricType,
      values,
      aggregator: "sum",
      // prom-client's type asks for it; nothing is left to collect at this point.
      collect: () => undefined,
    });
  }

  /** What the registry renders: the same values (prom-client asks this before `get`). */
  getForPromString(): Promise<Exposed> {
    return this.get();
  }
}
