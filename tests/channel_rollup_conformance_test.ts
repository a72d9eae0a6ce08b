/**
 * The channel rollup on each dialect: SQLite's batches (src/db/channel_rollup_rows.ts) and
 * PostgreSQL's trigger (migrations/postgres/015) count the same attempts the same way (what
 * is the channel's fault, what served, times to first byte by bucket, the last error), by
 * minute; the old minutes are pruned.
 */
import assert from "node:assert/strict";
import { issueKey } from "../src/auth/issue_key.ts";
import type { AttemptRecord } from "../src/billing/attempt_record.ts";
import { createAccount } from "../src/db/accounts.ts";
import { channelFigures, channelSeries, lastChannelErrors } from "../src/db/channel_rollup.ts";
import { pruneChannelRollup } from "../src/db/channel_rollup_rows.ts";
import { openDatabase } from "../src/db/database.ts";
import type { Settle } from "../src/db/store.ts";
import { stepOnEachDialect } from "./dialects.ts";

const MINUTE = 60_000;
const T0 = Date.parse("2030-01-01T12:00:00Z");

const attempt = (channel: string, fields: Partial<AttemptRecord>): AttemptRecord => ({
  channel,
  model: "m",
  upstreamModel: "m",
  outcome: "failed",
  ...fields,
});

/** Each request's attempts and when it settled (minutes after T0). */
const REQUESTS: [number, AttemptRecord[]][] = [
  [0, [attempt("a", { outcome: "ok", ttfbMs: 80 })]],
  [0, [attempt("a", { outcome: "ok", ttfbMs: 300.4 })]],
  [0, [
    attempt("a", { status: 500, reason: "first", kind: "status" }),
    attempt("a", { status: 502, reason: "second", kind: "status" }),
    attempt("b", { outcome: "ok", ttfbMs: 40_000 }),
  ]],
  [1, [attempt("a", { status: 400, reason: "the client's", kind: "status" })]],
  [1, [attempt("a", { reason: "gone", kind: "client_gone" })]],
  [1, [attempt("a", { outcome: "cut", ttfbMs: 1_200, reason: "cut", kind: "network" })]],
  [1, [attempt("b", { outcome: "aborted", ttfbMs: 2_500 })]],
  [2, [attempt("b", { reason: "x".repeat(600), kind: "timeout" })]],
  // A row without attempts (an interrupted one) counts for no channel.
  [2, []],
];

Deno.test("channel rollup conformance", (t) =>
  stepOnEachDialect(t, [{ name: "attempts by minute and channel" }], async (_, url) => {
    const db = await openDatabase(url);
    try {
      const migration = await db.migrate();
      assert.equal(migration.error, undefined);
      const account = (await createAccount(db.kysely, {
        name: "alice",
        balanceMicros: 0,
        unlimited: true,
        createdAt: T0,
      }))!;
      const { key } = await issueKey(db.kysely, {
        accountId: account.id,
        group: "default",
        createdAt: T0,
      });
      // Settled at once: a store writes them in batches, as a busy server does.
      const failures = await Promise.all(
        REQUESTS.map(([minute, attempts], index) =>
          db.store.settleHold(
            {
              holdId: `hold_${index}`,
              accountId: account.id,
              keyId: key.id,
              requestId: `req_${index}`,
              createdAt: T0 + minute * MINUTE + index,
              model: "m",
              entryPoint: "chat",
              channel: attempts.at(-1)?.channel ?? null,
              upstreamModel: "m",
              attempts: attempts.length,
              attemptLog: attempts.length > 0 ? JSON.stringify(attempts) : null,
              stream: false,
              status: attempts.at(-1)?.outcome === "ok" ? "ok" : "failed",
              reason: null,
              inputTokens: 1,
              outputTokens: 1,
              cachedTokens: 0,
              cacheWriteTokens: 0,
              estimated: false,
              costMicros: 0,
              durationMs: 1,
            } satisfies Settle,
          )
        ),
      );
      assert.deepEqual(failures.flat(), []);

      const all = await channelFigures(db.kysely, T0);
      assert.deepEqual(Object.fromEntries(all), {
        a: {
          attempts: 7,
          ok: 2,
          // Two 5xx and a cut: not the 400, nor the client gone.
          errors: 3,
          ttfbMs: 80 + 300 + 1_200,
          ttfb: [1, 0, 1, 0, 1, 0, 0, 0, 0, 0],
          lastOkAt: T0 + 1,
          lastErrorAt: T0 + MINUTE + 5,
        },
        b: {
          attempts: 3,
          ok: 1,
          errors: 1,
          ttfbMs: 42_500,
          ttfb: [0, 0, 0, 0, 0, 1, 0, 0, 0, 1],
          lastOkAt: T0 + 2,
          lastErrorAt: T0 + 2 * MINUTE + 7,
        },
      });
      // From the second minute on.
      const later = await channelFigures(db.kysely, T0 + MINUTE + 30_000);
      assert.deepEqual(
        ["a", "b"].map((name) => [later.get(name)?.attempts, later.get(name)?.errors]),
        [[3, 1], [2, 1]],
      );
      const errors = await lastChannelErrors(db.kysely, T0);
      assert.deepEqual(Object.fromEntries(errors), {
        a: { at: T0 + MINUTE + 5, status: null, reason: "cut" },
        b: { at: T0 + 2 * MINUTE + 7, status: null, reason: "x".repeat(500) },
      });
      const minuteZero = await channelSeries(db.kysely, "a", T0, MINUTE);
      assert.deepEqual(minuteZero.map(({ t, attempts, ok, errors }) => [t, attempts, ok, errors]), [
        [T0, 4, 2, 2],
        [T0 + MINUTE, 3, 0, 1],
      ]);
      assert.deepEqual(
        (await channelSeries(db.kysely, "b", T0, 3_600_000)).map((p) => [p.t, p.attempts]),
        [[T0, 3]],
      );

      // Older minutes go; the rest stay.
      await pruneChannelRollup(db.client, T0 + MINUTE);
      const kept = await channelFigures(db.kysely, 0);
      assert.deepEqual(["a", "b"].map((name) => kept.get(name)?.attempts), [3, 2]);
    } finally {
      await db.close();
    }
  }));
