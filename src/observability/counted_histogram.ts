/**
 * A prom-client histogram whose observations are counted in plain arrays, one per label
 * set bound once: an observation is a bucket search and three additions, where
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
  readonly #series: Counts[] = [];

  constructor(configuration: HistogramConfiguration<T> & { buckets: number[] }) {
    super(configuration);
    this.#name = configuration.name;
    this.#help = configuration.help;
    this.#bounds = [...configuration.buckets];
  }

  /** The series of one label set; bind it once and keep it. */
  series(labels: Record<T, string>): HistogramSeries {
    const counts: Counts = {
      labels: { ...labels },
      buckets: new Array(this.#bounds.length + 1).fill(0),
      sum: 0,
      count: 0,
    };
    this.#series.push(counts);
    const bounds = this.#bounds;
    return {
      observe(value) {
        let index = 0;
        while (index < bounds.length && value > bounds[index]!) index++;
        counts.buckets[index]!++;
        counts.sum += value;
        counts.count++;
      },
    };
  }

  /** The exposition's values, as prom-client's own histogram gives them. */
  override get(): Promise<Exposed> {
    const bucketName = `${this.#name}_bucket`;
    const values: Exposed["values"] = [];
    for (const { labels, buckets, sum, count } of this.#series) {
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
