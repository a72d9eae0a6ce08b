/**
 * A prom-client histogram that renders `HistogramCounts` (histogram_counts.ts): the
 * request path counts there, and prom-client's own `observe`, which copies, checks and
 * hashes the labels every time, is never called.
 */
import { Histogram, type MetricType, type Registry } from "prom-client";
import type { HistogramCounts } from "./histogram_counts.ts";

type Exposed = Awaited<ReturnType<Histogram<string>["get"]>>;

/** A histogram whose values are another object's counts. */
export class CountedHistogram<T extends string> extends Histogram<T> {
  readonly #counts: HistogramCounts<T>;

  constructor(counts: HistogramCounts<T>, registers: Registry[]) {
    super({
      name: counts.name,
      help: counts.help,
      labelNames: counts.labelNames,
      buckets: [...counts.bounds],
      registers,
    });
    this.#counts = counts;
  }

  /** The exposition's values, as prom-client's own histogram gives them. */
  override get(): Promise<Exposed> {
    const { name, help, bounds } = this.#counts;
    const bucketName = `${name}_bucket`;
    const values: Exposed["values"] = [];
    for (const { labels, buckets, sum, count } of this.#counts.counts()) {
      // As in prom-client, a label set appears once it has an observation.
      if (count === 0) continue;
      let cumulative = 0;
      bounds.forEach((bound, index) => {
        cumulative += buckets[index]!;
        values.push({
          labels: { le: bound, ...labels },
          value: cumulative,
          metricName: bucketName,
        });
      });
      values.push({ labels: { le: "+Inf", ...labels }, value: count, metricName: bucketName });
      values.push({ labels, value: sum, metricName: `${name}_sum` });
      values.push({ labels, value: count, metricName: `${name}_count` });
    }
    return Promise.resolve({
      name,
      help,
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
