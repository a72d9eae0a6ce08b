import assert from "node:assert/strict";
import { Histogram, Registry } from "prom-client";
import { CountedHistogram } from "./counted_histogram.ts";
import { HistogramCounts } from "./histogram_counts.ts";

Deno.test("counted histogram: renders what prom-client's own histogram renders for the same observations", async () => {
  const configuration = {
    name: "latency_seconds",
    help: "Latency.",
    labelNames: ["entry_point", "model"] as const,
    buckets: [0.01, 0.1, 1],
  };
  const [ours, theirs] = [new Registry(), new Registry()];
  const counted = new HistogramCounts(configuration);
  new CountedHistogram(counted, [ours]);
  const reference = new Histogram({ ...configuration, registers: [theirs] });
  const observations: [string, string, number][] = [
    ["chat", "a", 0.005],
    ["chat", "a", 0.01], // on a bound: counted in that bucket
    ["chat", "a", 0.5],
    ["chat", "a", 7],
    ["messages", "b", 0.05],
  ];
  // Bound but never observed: absent from the exposition, as prom-client's own.
  counted.series({ entry_point: "responses", model: "c" });
  for (const [entry_point, model, value] of observations) {
    counted.series({ entry_point, model }).observe(value);
    reference.observe({ entry_point, model }, value);
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
});
