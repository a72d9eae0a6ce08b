/**
 * tollgate as the bench runs it: `startServer` (through the test harness) on a temp
 * dir config and SQLite file, with a chat channel to the fake upstream serving a model
 * without a price and a priced one, one channel of each protocol to the fake serving
 * `bench-<protocol>` (unpriced; the direction phase's models), and two keys in group
 * `default`: one of an unlimited account (for the unpriced models) and one of an account
 * with a large balance (for the priced model, so every request takes and settles a real
 * hold).
 *
 * Run as a child of bench/run.ts: `deno run -A --unstable-no-legacy-abort
 * bench/tollgate_server.ts UPSTREAM_URL`; prints `{"url","unpricedKey","pricedKey"}`.
 */
import { channel, configWith, startGateway } from "../tests/harness.ts";
import { announce, stdinClosed } from "./child.ts";
import { protocolModel, PROTOCOLS } from "./protocols.ts";

const LIMITS = "context_window = 128000\nmax_output_tokens = 4096";

/** The models the bench config defines; the priced one costs like a small hosted model. */
export const BENCH_MODELS = [
  `[models."bench-unpriced"]\n${LIMITS}`,
  `[models."bench-priced"]\n${LIMITS}\ninput_price = 0.15\noutput_price = 0.60`,
  ...PROTOCOLS.map((protocol) => `[models."${protocolModel(protocol)}"]\n${LIMITS}`),
].join("\n\n") + "\n";

if (import.meta.main) {
  const upstream = Deno.args[0];
  if (!upstream) throw new Error("Usage: tollgate_server.ts UPSTREAM_URL");
  const channels = [
    channel({
      name: "bench-upstream",
      protocol: "chat",
      baseUrl: `${upstream}/v1`,
      models: ["bench-unpriced", "bench-priced"],
      keys: ["sk-bench-upstream"],
    }),
    ...PROTOCOLS.map((protocol) =>
      channel({
        name: `bench-${protocol}-upstream`,
        protocol,
        baseUrl: `${upstream}/v1`,
        models: [protocolModel(protocol)],
        keys: ["sk-bench-upstream"],
      })
    ),
  ];
  const gateway = await startGateway(configWith(channels.join("\n"), BENCH_MODELS));
  const unpriced = await gateway.createKey({ account: "bench-unlimited", unlimited: true });
  const priced = await gateway.createKey({ account: "bench-funded", balanceUsd: "1000000" });
  announce({ url: gateway.url, unpricedKey: unpriced.secret, pricedKey: priced.secret });
  await stdinClosed();
  await gateway.close();
  Deno.exit(0);
}
