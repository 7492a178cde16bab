import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';

/** The `edge.web_sessions` table (migration 0003). */
export interface WebSessionDb {
  web_sessions: {
    id_hash: string;
    user_id: string;
    created_at: Date | string;
    expires_at: Date | string;
  };
}

/** A live session as the pages see it. */
export interface WebSession {
  /** SHA-256 of the session id (base64url): the row key, and the rate-limit key of the session. */
  key: string;
  user: string;
  /** Epoch seconds: compared by enrollment with the user's last access revocation. */
  createdAt: number;
  expiresAt: number;
}

/** A session id is 32 random bytes in base64url: anything else in the cookie is not looked up. */
export const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

const hash = (id: string) => createHash('sha256').update(id).digest('base64url');

/**
 * The CSRF token of a session: derived from the session id (HMAC), so it needs no storage and
 * cannot be computed from the stored hash. Pages receive it in the HTML and send it back in the
 * `x-csrf-token` header (fetch) or a `csrf` form field.
 */
export function csrfToken(sessionId: string): string {
  return createHmac('sha256', sessionId).update('studium-web-csrf').digest('base64url');
}

/**
 * Constant-time comparison of a sent token with the expected one. The lengths compared are the
 * bytes' (a sent value with non-ASCII characters has as many characters but more bytes, and
 * timingSafeEqual throws on buffers of different lengths).
 */
export function tokensMatch(sent: unknown, expected: string): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** All SQL of web sessions. */
export class SessionRepository {
  private readonly db: Kysely<WebSessionDb>;

  constructor(
    db: Kysely<unknown>,
    private readonly ttlMs: number,
    /** Sessions a user keeps at most: signing in again drops the oldest beyond it. */
    private readonly perUser = 20,
  ) {
    this.db = db as unknown as Kysely<WebSessionDb>;
  }

  /** Opens a session for a user whose password was checked; returns the id that goes in the cookie. */
  async create(user: string): Promise<{ id: string; session: WebSession }> {
    const id = randomBytes(32).toString('base64url');
    const now = Date.now();
    const row = { id_hash: hash(id), user_id: user, created_at: new Date(now), expires_at: new Date(now + this.ttlMs) };
    await this.db.insertInto('web_sessions').values(row).execute();
    const keep = this.db
      .selectFrom('web_sessions')
      .select('id_hash')
      .where('user_id', '=', user)
      .orderBy('created_at', 'desc')
      .limit(this.perUser);
    await this.db.deleteFrom('web_sessions').where('user_id', '=', user).where('id_hash', 'not in', keep).execute();
    return {
      id,
      session: { key: row.id_hash, user, createdAt: Math.floor(now / 1000), expiresAt: now + this.ttlMs },
    };
  }

  /** The live session of a cookie value; null when unknown, malformed or expired. */
  async find(id: string): Promise<WebSession | null> {
    if (!SESSION_ID.test(id)) return null;
    const key = hash(id);
    const row = await this.db
      .selectFrom('web_sessions')
      .select(['user_id', 'created_at', 'expires_at'])
      .where('id_hash', '=', key)
      .where('expires_at', '>', new Date())
      .executeTakeFirst();
    if (!row) return null;
    return {
      key,
      user: row.user_id,
      createdAt: Math.floor(new Date(row.created_at).getTime() / 1000),
      expiresAt: new Date(row.expires_at).getTime(),
    };
  }

  /** Ends a session (sign-out). */
  async delete(id: string): Promise<void> {
    if (!SESSION_ID.test(id)) return;
    await this.db.deleteFrom('web_sessions').where('id_hash', '=', hash(id)).execute();
  }

  /** Removes expired rows (run now and then by one timer per replica). */
  async sweep(): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('expires_at', '<=', new Date()).execute();
  }
}
