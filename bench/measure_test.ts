import assert from "node:assert/strict";
import { combineSlices, pairedRatio } from "./measure.ts";
import { throughputRatio, translationCpuRatio } from "./report.ts";
import { type PhaseResult } from "./results.ts";

const slice = (requestsPerSecond: number): PhaseResult => ({
  requests: requestsPerSecond,
  errors: 0,
  seconds: 1,
  requestsPerSecond,
  latency: { p50: 1, p99: 1, mean: 1 },
  concurrency: 32,
  stream: false,
});
const phaseOf = (rates: number[]) => combineSlices(rates.map(slice));

Deno.test("bench: a throughput ratio is taken round by round, so the machine's drift cancels", () => {
  // The machine's speed differs round to round (1, 2, 1.4); tollgate reaches 0.8 of the bare
  // proxy in each round but the last, where the host stalled its slice.
  const bare = phaseOf([5000, 10000, 7000]);
  const tollgate = phaseOf([4000, 8000, 2000]);
  assert.deepEqual(tollgate.sliceRates, [4000, 8000, 2000]);
  // The medians' ratio would read 4000 / 7000: the two medians come from different rounds.
  assert.equal((tollgate.requestsPerSecond / bare.requestsPerSecond).toFixed(2), "0.57");
  assert.equal(throughputRatio(tollgate, bare).value.toFixed(2), "0.80");
});

Deno.test("bench: a paired ratio says how precisely its rounds know it", () => {
  assert.deepEqual(pairedRatio([900, 1800, 450], [1000, 2000, 500]), { value: 0.9, spread: 0 });
  const { spread } = pairedRatio([800, 1000, 900, 850], [1000, 1000, 1000, 1000]);
  // Ratios 0.8, 1.0, 0.9, 0.85: standard deviation 0.0854, over the root of 4 rounds, twice.
  assert.equal(spread.toFixed(3), "0.085");
  assert.throws(() => pairedRatio([1, 2], [1]), /2 and 1 rounds/);
});

Deno.test("bench: without rounds in common, a throughput ratio is the medians' ratio", () => {
  const ratio = throughputRatio(phaseOf([900, 1000, 1100]), phaseOf([1000, 1000]));
  assert.equal(ratio.value.toFixed(2), "1.00");
  assert.equal("spread" in ratio, false);
});

Deno.test("bench: a translation's CPU a chunk is compared with its pass-through round by round", () => {
  const phase = (cpuMicros: number[]) =>
    combineSlices(
      cpuMicros.map((cpu) => ({ ...slice(100), cpuMs: cpu / 10, cpuMicrosPerRequest: cpu })),
    );
  // The host slows down in the last two rounds; the translation costs 1.2x its pass-through in
  // each, but for the last, where the host disturbed its slice (all slices' CPU: 3920 / 2400).
  const passthrough = phase([400, 400, 800, 800]);
  const translated = phase([480, 480, 960, 2000]);
  const directions = [
    {
      client: "messages",
      upstream: "messages",
      name: "messages pass-through",
      result: passthrough,
    },
    { client: "messages", upstream: "chat", name: "messages -> chat", result: translated },
  ] as const;
  const ratio = translationCpuRatio([...directions], directions[1], 64);
  assert.equal(ratio?.value.toFixed(2), "1.20");
});
