/** Queries on dashboard sessions: open, find (with its key's hash), touch, end, expire. */
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** A session as found by its token's hash, with the stored hash of its key. */
export interface SessionRow {
  key_id: string;
  /** `api_keys.hash` of the session's key: what key lookups take. */
  key_hash: string;
  created_at: number;
  seen_at: number;
}

/** Stores a new session (`token_hash`: the SHA-256 hex of its token). */
export async function insertSession(
  db: Kysely<Database>,
  session: { token_hash: string; key_id: string; created_at: number },
): Promise<void> {
  await db.insertInto("sessions").values({ ...session, seen_at: session.created_at }).execute();
}

/** The session of a token's hash, or undefined (its key gone with it). */
export async function findSession(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<SessionRow | undefined> {
  return await db
    .selectFrom("sessions")
    .innerJoin("api_keys", "api_keys.id", "sessions.key_id")
    .select([
      "sessions.key_id",
      "api_keys.hash as key_hash",
      "sessions.created_at",
      "sessions.seen_at",
    ])
    .where("sessions.token_hash", "=", tokenHash)
    .executeTakeFirst();
}

/** Records that the session was used at `seenAt`. */
export async function touchSession(
  db: Kysely<Database>,
  tokenHash: string,
  seenAt: number,
): Promise<void> {
  await db.updateTable("sessions").set({ seen_at: seenAt }).where("token_hash", "=", tokenHash)
    .execute();
}

/** Ends one session. */
export async function deleteSession(db: Kysely<Database>, tokenHash: string): Promise<void> {
  await db.deleteFrom("sessions").where("token_hash", "=", tokenHash).execute();
}

/** Ends every session idle since before `seenBefore` or opened before `createdBefore`. */
export async function deleteExpiredSessions(
  db: Kysely<Database>,
  limits: { seenBefore: number; createdBefore: number },
): Promise<void> {
  await db.deleteFrom("sessions")
    .where((where) =>
      where.or([
        where("seen_at", "<", limits.seenBefore),
        where("created_at", "<", limits.createdBefore),
      ])
    )
    .execute();
}
