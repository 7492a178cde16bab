import { type Kysely, sql } from 'kysely';
import type { EdgeDb } from '../audit.ts';

/**
 * The operations on a user's OAuth grants (the assistants signed in as them). The admin CLI
 * (`studium grant list|revoke`) and the «Подключённые ассистенты» page call these and nothing
 * else, so both show and end grants the same way.
 */

/** One OAuth grant of a user. */
export interface GrantRow {
  grant: string;
  client: string;
  /** The client's self-declared name (anyone can register any name), null when it gave none. */
  client_name: string | null;
  /** JSON: each resource (endpoint URL) with its scopes, `{"https://…/mcp":"read write"}`. */
  scopes: string;
  /** When the user allowed it (the grant's creation). */
  created_at: string | null;
  /** When one of its access tokens was last used, null before the first use. */
  last_used_at: string | null;
  expires_at: string | null;
}

/** A grant id as oidc-provider makes them (21 url-safe characters); anything else is no grant. */
export const GRANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

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
      sql<string | null>`to_timestamp((g.payload->>'iat')::bigint)`.as('created_at'),
      'g.last_used_at',
      'g.expires_at',
    ])
    .where('g.kind', '=', 'Grant')
    .where('g.account_id', '=', user)
    .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', sql<string>`now()`)]))
    .orderBy('g.id')
    .execute();
  return rows.map((r) => ({
    ...r,
    created_at: r.created_at ? new Date(r.created_at).toISOString() : null,
    last_used_at: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
    expires_at: r.expires_at ? new Date(r.expires_at).toISOString() : null,
  })) as GrantRow[];
}

/**
 * Ends OAuth grants of a user — all of them, or only `grant` — with every code, access and
 * refresh token issued under them (and, for all, the user's sign-in sessions of the authorization
 * server); each ended grant is written to the audit log with `by`. Returns how many were ended
 * (0 when `grant` is not one of the user's: no one ends another's grant).
 */
export async function revokeGrants(db: Kysely<EdgeDb>, user: string, by = 'admin', grant?: string): Promise<number> {
  if (grant !== undefined && !GRANT_ID.test(grant)) return 0;
  return db.transaction().execute(async (trx) => {
    let ended = trx.deleteFrom('oauth_store').where('kind', '=', 'Grant').where('account_id', '=', user);
    if (grant !== undefined) ended = ended.where('id', '=', grant);
    const grants = await ended.returning(['id', sql<string>`payload->>'clientId'`.as('client')]).execute();
    const ids = grants.map((g) => g.id);
    if (ids.length) await trx.deleteFrom('oauth_store').where('grant_id', 'in', ids).execute();
    if (grant === undefined) await trx.deleteFrom('oauth_store').where('account_id', '=', user).execute();
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

/**
 * Writes when a grant was last used, at most once per `everyMs` per grant from this replica, so
 * resolving tokens costs no write per call. In the background: a failed write loses a date, not a call.
 */
export class GrantUse {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly db: Kysely<EdgeDb>,
    private readonly everyMs = 60_000,
    private readonly keep = 10_000,
  ) {}

  seen(grant: string | undefined): void {
    if (!grant) return;
    const now = Date.now();
    if ((this.written.get(grant) ?? 0) > now - this.everyMs) return;
    if (this.written.size >= this.keep) this.written.clear();
    this.written.set(grant, now);
    void this.db
      .updateTable('oauth_store')
      .set({ last_used_at: sql<string>`now()` })
      .where('kind', '=', 'Grant')
      .where('id', '=', grant)
      .execute()
      .catch(() => {});
  }
}
