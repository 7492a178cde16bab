import { type Kysely, sql } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { EdgeDb } from '../audit.ts';

/**
 * oidc-provider's persistence in the edge schema (`oauth_store`): one row per model instance,
 * shared by all replicas. Expired rows are ignored on read and swept by {@link sweepExpired}.
 */
export function pgAdapter(db: Kysely<EdgeDb>) {
  return class PgAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const expires = expiresIn ? sql<string>`now() + make_interval(secs => ${expiresIn})` : null;
      const row = {
        kind: this.kind,
        id,
        payload: JSON.stringify(payload),
        grant_id: payload.grantId ?? null,
        uid: payload.uid ?? null,
        user_code: payload.userCode ?? null,
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
      const row = await db
        .selectFrom('oauth_store')
        .select('payload')
        .where('kind', '=', this.kind)
        .where(column, '=', value)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<string>`now()`)]))
        .executeTakeFirst();
      return row ? (row.payload as unknown as AdapterPayload) : undefined;
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
        .where('id', '=', id)
        .execute();
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oauth_store').where('kind', '=', this.kind).where('id', '=', id).execute();
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
