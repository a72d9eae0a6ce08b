/** Shared set-up of the accounting tests: a priced model behind a fake chat upstream. */
import type { Db } from "../src/db/database.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { channel, configWith, startGateway } from "./harness.ts";

/** One output token costs 1 micro-USD; input is free, so a hold is exactly max_tokens micros. */
export const PRICED_MODEL = `
[models.priced]
max_output_tokens = 1000
input_price = 0
output_price = 1
`;

/**
 * A gateway with model "priced" on a chat channel to a fake upstream, on a SQLite file or
 * on the database `databaseUrl` names.
 */
export async function startPricedGateway(
  protocol: "chat" | "messages" | "responses" = "chat",
  databaseUrl?: string,
) {
  const fake = await startFakeUpstream({ name: "up" });
  const gateway = await startGateway(
    configWith(
      channel({ name: "up", protocol, baseUrl: fake.url, models: ["priced"], keys: ["k1"] }),
      PRICED_MODEL,
    ),
    { databaseUrl },
  );
  return {
    fake,
    gateway,
    async close() {
      await gateway.close();
      await fake.close();
    },
  };
}

/** Waits until `condition` holds, checking between awaited turns; fails after `tries`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  tries = 1_000,
): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** A chat request for the priced model. */
export function chatBody(text: string, extra: Record<string, unknown> = {}) {
  return {
    model: "priced",
    max_tokens: 1000,
    messages: [{ role: "user", content: text }],
    ...extra,
  };
}

/** How many holds the database has (requests in flight, or left by a crash). */
export async function countHolds(db: Db): Promise<number> {
  const row = await db.kysely.selectFrom("holds")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
