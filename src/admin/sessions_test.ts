import assert from "node:assert/strict";
import { hashKeySecret } from "../auth/keys.ts";
import { createSessions, SESSION_IDLE_MS, SESSION_MAX_AGE_MS } from "./sessions.ts";
import { withAdmin } from "./test_support.ts";

Deno.test("sessions: only the token's hash is stored; a session resumes to its key's hash", async () => {
  await withAdmin(async ({ admin, db, clock }) => {
    await admin.accounts.create({ name: "ops", unlimited: true });
    const created = await admin.keys.create({ account: "ops" });
    const sessions = createSessions({
      queries: () => Promise.resolve(db.kysely),
      now: () => clock.now,
    });
    const { token, expiresAt } = await sessions.open(created.id);
    assert.match(token, /^[0-9A-Za-z]{48}$/);
    assert.equal(expiresAt, clock.now + SESSION_MAX_AGE_MS);
    const rows = await db.kysely.selectFrom("sessions").selectAll().execute();
    assert.deepEqual(rows.map((row) => row.token_hash), [hashKeySecret(token)]);
    assert.ok(!JSON.stringify(rows).includes(token), "the token itself is nowhere in the table");
    assert.deepEqual(await sessions.resume(token), {
      keyId: created.id,
      keyHash: hashKeySecret(created.key),
    });
    assert.equal(await sessions.resume(`${token.slice(0, -1)}x`), undefined);
    assert.equal(await sessions.resume("not a token"), undefined);
  });
});

Deno.test("sessions: end after 12 hours unused, after 7 days whatever the use, and at sign-out", async () => {
  await withAdmin(async ({ admin, db, clock }) => {
    await admin.accounts.create({ name: "ops", unlimited: true });
    const { id } = await admin.keys.create({ account: "ops" });
    const sessions = createSessions({
      queries: () => Promise.resolve(db.kysely),
      now: () => clock.now,
    });
    const count = async () =>
      (await db.kysely.selectFrom("sessions").select("token_hash").execute()).length;

    const idle = await sessions.open(id);
    clock.now += SESSION_IDLE_MS - 1;
    assert.ok(await sessions.resume(idle.token), "used just before the idle limit");
    clock.now += SESSION_IDLE_MS - 1;
    assert.ok(await sessions.resume(idle.token), "that use started the idle time anew");
    clock.now += SESSION_IDLE_MS;
    assert.equal(await sessions.resume(idle.token), undefined, "12 hours unused");
    assert.equal(await count(), 0, "an expired session is removed when met");

    const busy = await sessions.open(id);
    const opened = clock.now;
    while (clock.now + SESSION_IDLE_MS / 2 < opened + SESSION_MAX_AGE_MS) {
      clock.now += SESSION_IDLE_MS / 2;
      assert.ok(await sessions.resume(busy.token), "in use every 6 hours");
    }
    clock.now = opened + SESSION_MAX_AGE_MS;
    assert.equal(await sessions.resume(busy.token), undefined, "7 days after sign-in");

    const forgotten = await sessions.open(id);
    clock.now += SESSION_MAX_AGE_MS;
    const signedOut = await sessions.open(id);
    assert.equal(await count(), 1, "a sign-in removes sessions that expired unseen");
    assert.equal(await sessions.resume(forgotten.token), undefined);
    await sessions.end(signedOut.token);
    assert.equal(await sessions.resume(signedOut.token), undefined);
    assert.equal(await count(), 0);
  });
});
