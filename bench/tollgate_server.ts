/**
 * tollgate as the bench runs it: `startServer` (through the test harness) on a temp
 * dir config and SQLite file, with one chat channel to the fake upstream, a model
 * without a price and a priced one, and two keys in group `default`: one of an unlimited
 * account (for the unpriced model) and one of an account with a large balance (for the
 * priced model, so every request takes and settles a real hold).
 *
 * Run as a child of bench/run.ts: `deno run -A --unstable-no-legacy-abort
 * bench/tollgate_server.ts UPSTREAM_URL`; prints `{"url","unpricedKey","pricedKey"}`.
 */
import { channel, configWith, startGateway } from "../tests/harness.ts";
import { announce, stdinClosed } from "./child.ts";

/** The models the bench config defines; the priced one costs like a small hosted model. */
export const BENCH_MODELS = `
[models."bench-unpriced"]
context_window = 128000
max_output_tokens = 4096

[models."bench-priced"]
context_window = 128000
max_output_tokens = 4096
input_price = 0.15
output_price = 0.60
`;

if (import.meta.main) {
  const upstream = Deno.args[0];
  if (!upstream) throw new Error("Usage: tollgate_server.ts UPSTREAM_URL");
  const gateway = await startGateway(configWith(
    channel({
      name: "bench-upstream",
      protocol: "chat",
      baseUrl: `${upstream}/v1`,
      models: ["bench-unpriced", "bench-priced"],
      keys: ["sk-bench-upstream"],
    }),
    BENCH_MODELS,
  ));
  const unpriced = await gateway.createKey({ account: "bench-unlimited", unlimited: true });
  const priced = await gateway.createKey({ account: "bench-funded", balanceUsd: "1000000" });
  announce({ url: gateway.url, unpricedKey: unpriced.secret, pricedKey: priced.secret });
  await stdinClosed();
  await gateway.close();
  Deno.exit(0);
}
