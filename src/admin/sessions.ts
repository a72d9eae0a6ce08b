/**
 * Dashboard sessions: a browser signed in with an API key holds a random token; the
 * database keeps only the token's SHA-256, beside the key it was opened with, so that every
 * node sharing the database knows it. A session ends at sign-out, after `idleMs` unused, or
 * `maxAgeMs` after sign-in, whichever comes first. Whether its key may still be used is not
 * decided here: the caller checks the key, by the hash this hands back, on every request.
 */
import { hashKeySecret, randomBase62 } from "../auth/keys.ts";
import type { Queries } from "../db/schema.ts";
import {
  deleteExpiredSessions,
  deleteSession,
  findSession,
  insertSession,
  touchSession,
} from "../db/sessions.ts";

/** A session ends after this long unused. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** A session ends this long after sign-in, however much it is used. */
export const SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** A session's last use is written at most this often (a page of requests writes once). */
const TOUCH_EVERY_MS = 60 * 1000;
/** What `open` makes: anything else is no session, without a look in the database. */
const TOKEN = /^[0-9A-Za-z]{48}$/;

/** A session just opened: its token (the cookie's value, shown nowhere else). */
export interface OpenedSession {
  token: string;
  /** When it ends at the latest, ms since the epoch. */
  expiresAt: number;
}

/** A session in force: the key it was opened with. */
export interface ResumedSession {
  keyId: string;
  /** The stored hash of the key, for a key lookup. */
  keyHash: string;
}

/** Opens, resumes and ends sessions. */
export interface Sessions {
  /** Opens a session for the key `keyId`. */
  open(keyId: string): Promise<OpenedSession>;
  /** The session of `token` while it is in force; undefined when unknown, ended or expired. */
  resume(token: string): Promise<ResumedSession | undefined>;
  /** Ends the session of `token` (nothing when there is none). */
  end(token: string): Promise<void>;
}

/** What sessions are kept with. */
export interface SessionDeps {
  queries: () => Promise<Queries>;
  now: () => number;
  idleMs?: number;
  maxAgeMs?: number;
}

/** Sessions in the database `queries` reaches. */
export function createSessions(deps: SessionDeps): Sessions {
  const idleMs = deps.idleMs ?? SESSION_IDLE_MS;
  const maxAgeMs = deps.maxAgeMs ?? SESSION_MAX_AGE_MS;
  return {
    async open(keyId) {
      const db = await deps.queries();
      const now = deps.now();
      // Sessions nobody signed out of are removed as others sign in.
      await deleteExpiredSessions(db, { seenBefore: now - idleMs, createdBefore: now - maxAgeMs });
      // ~285 bits from the system's CSPRNG, as key secrets are made.
      const token = randomBase62(48);
      await insertSession(db, { token_hash: hashKeySecret(token), key_id: keyId, created_at: now });
      return { token, expiresAt: now + maxAgeMs };
    },
    async resume(token) {
      if (!TOKEN.test(token)) return undefined;
      const db = await deps.queries();
      const tokenHash = hashKeySecret(token);
      const session = await findSession(db, tokenHash);
      if (session === undefined) return undefined;
      const now = deps.now();
      if (now - session.seen_at >= idleMs || now - session.created_at >= maxAgeMs) {
        await deleteSession(db, tokenHash);
        return undefined;
      }
      if (now - session.seen_at >= TOUCH_EVERY_MS) await touchSession(db, tokenHash, now);
      return { keyId: session.key_id, keyHash: session.key_hash };
    },
    async end(token) {
      await deleteSession(await deps.queries(), hashKeySecret(token));
    },
  };
}
