import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { EdgeDb } from '../audit.ts';

/**
 * Models whose id (and user code) is itself a credential — whoever holds the value can use it:
 * tokens, codes, the sign-in session and interaction (their ids are the cookies' values). They are
 * stored under the SHA-256 of the value, and the copies in the payload are left out, so a row read
 * from the database is no credential. Clients and grants keep their ids (public identifiers).
 */
const SECRET_KINDS = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'ClientCredentials',
  'InitialAccessToken',
  'RegistrationAccessToken',
  'PushedAuthorizationRequest',
  'Session',
  'Interaction',
]);

/** How a credential is stored: SHA-256, hex (the values are 256-bit random, so no salt is needed). */
export function storedId(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/**
 * oidc-provider's persistence in the edge schema (`oauth_store`): one row per model instance,
 * shared by all replicas. Expired rows are ignored on read and swept by {@link sweepExpired}.
 */
export function pgAdapter(db: Kysely<EdgeDb>) {
  return class PgAdapter implements Adapter {
    private readonly secret: boolean;
    constructor(private readonly kind: string) {
      this.secret = SECRET_KINDS.has(kind);
    }

    /** The stored form of an id or user code: the hash for credentials, else the value. */
    private key(value: string): string {
      return this.secret ? storedId(value) : value;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const expires = expiresIn ? sql<string>`now() + make_interval(secs => ${expiresIn})` : null;
      const stored: AdapterPayload = { ...payload };
      if (this.secret) {
        // The values are given back on read from what the caller looked the row up by.
        delete stored.jti;
        delete stored.userCode;
      }
      // An interaction keeps a copy of its sign-in session's id (the `_session` cookie's value),
      // which oidc-provider never reads back: left out, so no stored row holds a session's id.
      const session = stored.session as Record<string, unknown> | undefined;
      if (this.kind === 'Interaction' && session && 'cookie' in session) {
        const { cookie: _, ...rest } = session;
        stored.session = rest;
      }
      const row = {
        kind: this.kind,
        id: this.key(id),
        payload: JSON.stringify(stored),
        grant_id: payload.grantId ?? null,
        // A session's uid is no credential (tokens name it; the cookie carries the id).
        uid: payload.uid ?? null,
        user_code: payload.userCode ? this.key(payload.userCode) : null,
        account_id: payload.accountId ?? null,
        expires_at: expires,
      };
      await db
        .insertInto('oauth_store')
        .values(row as never)
        .onConflict((oc) => oc.columns(['kind', 'id']).doUpdateSet(row as never))
        .execute();
    }

    private async one(column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> {
      // The lookup is by hash equality in an index: how long it takes says nothing about the value.
      const row = await db
        .selectFrom('oauth_store')
        .select('payload')
        .where('kind', '=', this.kind)
        .where(column, '=', column === 'uid' ? value : this.key(value))
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<string>`now()`)]))
        .executeTakeFirst();
      if (!row) return undefined;
      const payload = row.payload as unknown as AdapterPayload;
      if (!this.secret) return payload;
      // The value looked up by is given back; a session found by its uid (a read-only check of its
      // account) gets no jti, which oidc-provider then does not need.
      const restored: AdapterPayload = { ...payload };
      if (column === 'id') restored.jti = value;
      if (column === 'user_code') restored.userCode = value;
      return restored;
    }

    find(id: string) {
      return this.one('id', id);
    }

    findByUid(uid: string) {
      return this.one('uid', uid);
    }

    findByUserCode(userCode: string) {
      return this.one('user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      await db
        .updateTable('oauth_store')
        .set({ payload: sql`payload || jsonb_build_object('consumed', extract(epoch from now())::bigint)` } as never)
        .where('kind', '=', this.kind)
        .where('id', '=', this.key(id))
        .execute();
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oauth_store').where('kind', '=', this.kind).where('id', '=', this.key(id)).execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.deleteFrom('oauth_store').where('grant_id', '=', grantId).execute();
    }
  };
}

/** Deletes rows that expired more than a day ago (a consumed refresh token is kept that long to detect reuse). */
export async function sweepExpired(db: Kysely<EdgeDb>): Promise<number> {
  const r = await db
    .deleteFrom('oauth_store')
    .where('expires_at', '<', sql<string>`now() - interval '1 day'`)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
