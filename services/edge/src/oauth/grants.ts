import { type Kysely, sql } from 'kysely';
import type { EdgeDb } from '../audit.ts';

/** One OAuth grant of a user (what the admin CLI lists). */
export interface GrantRow {
  grant: string;
  client: string;
  client_name: string | null;
  scopes: string;
  expires_at: string | null;
}

/** The user's live OAuth grants, with the client each was given to and its scopes per resource. */
export async function listGrants(db: Kysely<EdgeDb>, user: string): Promise<GrantRow[]> {
  const rows = await db
    .selectFrom('oauth_store as g')
    .leftJoin('oauth_store as c', (j) => j.on('c.kind', '=', 'Client').on(sql`c.id`, '=', sql`g.payload->>'clientId'`))
    .select([
      'g.id as grant',
      sql<string>`g.payload->>'clientId'`.as('client'),
      sql<string | null>`c.payload->>'client_name'`.as('client_name'),
      sql<string>`coalesce(g.payload->'resources', '{}'::jsonb)::text`.as('scopes'),
      'g.expires_at',
    ])
    .where('g.kind', '=', 'Grant')
    .where('g.account_id', '=', user)
    .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', sql<string>`now()`)]))
    .orderBy('g.id')
    .execute();
  return rows as GrantRow[];
}

/**
 * Ends every OAuth grant of a user: the grants and all their codes, access and refresh tokens and
 * sessions are deleted, and each revocation is written to the audit log. Returns the grants ended.
 */
export async function revokeGrants(db: Kysely<EdgeDb>, user: string, by = 'admin'): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const grants = await trx
      .deleteFrom('oauth_store')
      .where('kind', '=', 'Grant')
      .where('account_id', '=', user)
      .returning(['id', sql<string>`payload->>'clientId'`.as('client')])
      .execute();
    const ids = grants.map((g) => g.id);
    if (ids.length) await trx.deleteFrom('oauth_store').where('grant_id', 'in', ids).execute();
    await trx.deleteFrom('oauth_store').where('account_id', '=', user).execute();
    if (grants.length) {
      await trx
        .insertInto('audit_log')
        .values(
          grants.map((g) => ({
            kind: 'oauth_revocation',
            user_id: user,
            endpoint: 'oauth',
            tool: null,
            detail: JSON.stringify({ grantId: g.id, client: g.client, by }),
          })),
        )
        .execute();
    }
    return grants.length;
  });
}
