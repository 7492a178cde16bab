import { type Kysely, sql } from 'kysely';
import type { EnrollmentDb } from '../db.ts';

/** A token joined with its user, as the edge needs it. */
export interface TokenRow {
  user: string;
  full_name: string;
  roles: string[];
  scope: 'read' | 'write';
  expires_at: string | null;
  revoked_at: string | null;
  space: string;
}

/** An organization membership as whoami shows it. */
export interface MembershipRow {
  name: string;
  title: string;
  role: 'manager' | 'member';
  suspended: boolean;
}

/**
 * The space a user is in: the stored selection when it is still available (personal, or an
 * organization they belong to that is not suspended), otherwise personal.
 */
export const effectiveSpace = sql<string>`case
  when u.selected_space = 'personal' then 'personal'
  when exists (
    select 1 from memberships m join organizations o on o.name = m.org
    where m.user_id = u.id and m.org = u.selected_space and not o.suspended
  ) then u.selected_space
  else 'personal' end`;

/** All SQL of users, organizations, memberships and tokens. */
export class IdentityRepository {
  constructor(private readonly db: Kysely<EnrollmentDb>) {}

  /** One query on the hot path of every MCP request (behind the edge's cache). */
  async findToken(hash: string): Promise<TokenRow | undefined> {
    return this.db
      .selectFrom('api_tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select([
        'u.id as user',
        'u.full_name',
        'u.roles',
        't.scope',
        't.expires_at',
        't.revoked_at',
        effectiveSpace.as('space'),
      ])
      .where('t.token_hash', '=', hash)
      .executeTakeFirst();
  }

  /** A user as sign-in and OAuth token resolution need them (hash and revocation included). */
  async findUserAccess(id: string) {
    return this.db
      .selectFrom('users as u')
      .select([
        'u.id as user',
        'u.full_name',
        'u.roles',
        'u.password_hash',
        'u.access_revoked_at',
        effectiveSpace.as('space'),
      ])
      .where('u.id', '=', id)
      .executeTakeFirst();
  }

  async setPasswordHash(id: string, hash: string): Promise<boolean> {
    const r = await this.db.updateTable('users').set({ password_hash: hash }).where('id', '=', id).executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Ends all of a user's access: API tokens revoked, OAuth tokens issued before now refused. */
  async revokeAllAccess(id: string): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ access_revoked_at: sql`now()` }).where('id', '=', id).execute();
      const r = await trx
        .updateTable('api_tokens')
        .set({ revoked_at: sql`now()` })
        .where('user_id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    });
  }

  /** The user with every membership, in one round trip. */
  async findUserWithOrgs(
    userId: string,
  ): Promise<
    { id: string; full_name: string; space: string; selected_space: string; organizations: MembershipRow[] } | undefined
  > {
    return this.db
      .selectFrom('users as u')
      .select([
        'u.id',
        'u.full_name',
        effectiveSpace.as('space'),
        'u.selected_space',
        sql<MembershipRow[]>`coalesce((
          select json_agg(json_build_object('name', o.name, 'title', o.title, 'role', m.role, 'suspended', o.suspended)
                          order by o.title)
          from memberships m join organizations o on o.name = m.org where m.user_id = u.id), '[]'::json)`.as(
          'organizations',
        ),
      ])
      .where('u.id', '=', userId)
      .executeTakeFirst();
  }

  async findMembership(userId: string, org: string): Promise<MembershipRow | undefined> {
    return this.db
      .selectFrom('memberships as m')
      .innerJoin('organizations as o', 'o.name', 'm.org')
      .select(['o.name', 'o.title', 'm.role', 'o.suspended'])
      .where('m.user_id', '=', userId)
      .where('m.org', '=', org)
      .executeTakeFirst();
  }

  /** An organization by name. */
  async findOrganization(name: string): Promise<{ name: string; title: string; suspended: boolean } | undefined> {
    return this.db
      .selectFrom('organizations')
      .select(['name', 'title', 'suspended'])
      .where('name', '=', name)
      .executeTakeFirst();
  }

  async setSelectedSpace(userId: string, space: string): Promise<void> {
    await this.db.updateTable('users').set({ selected_space: space }).where('id', '=', userId).execute();
  }

  /** Creates or updates a user; true when the user is new. */
  async upsertUser(user: { id: string; full_name: string; roles: string[] }): Promise<boolean> {
    const row = await this.db
      .insertInto('users')
      .values(user)
      .onConflict((oc) => oc.column('id').doUpdateSet({ full_name: user.full_name, roles: user.roles }))
      .returning(sql<boolean>`(xmax = 0)`.as('created'))
      .executeTakeFirstOrThrow();
    return row.created;
  }

  async upsertOrganization(org: { name: string; title: string; suspended?: boolean }): Promise<void> {
    await this.db
      .insertInto('organizations')
      .values({ name: org.name, title: org.title, suspended: org.suspended ?? false })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ title: org.title, ...(org.suspended === undefined ? {} : { suspended: org.suspended }) }),
      )
      .execute();
  }

  async setSuspended(org: string, suspended: boolean): Promise<string[]> {
    await this.db.updateTable('organizations').set({ suspended }).where('name', '=', org).execute();
    return this.membersOf(org);
  }

  async membersOf(org: string): Promise<string[]> {
    const rows = await this.db.selectFrom('memberships').select('user_id').where('org', '=', org).execute();
    return rows.map((r) => r.user_id);
  }

  async upsertMembership(m: { org: string; user_id: string; role: 'manager' | 'member' }): Promise<void> {
    await this.db
      .insertInto('memberships')
      .values(m)
      .onConflict((oc) => oc.columns(['user_id', 'org']).doUpdateSet({ role: m.role }))
      .execute();
  }

  async removeMembership(userId: string, org: string): Promise<void> {
    await this.db.deleteFrom('memberships').where('user_id', '=', userId).where('org', '=', org).execute();
  }

  async insertToken(t: {
    id: string;
    user_id: string;
    token_hash: string;
    label: string;
    scope: 'read' | 'write';
    expires_at: string | null;
  }): Promise<void> {
    await this.db.insertInto('api_tokens').values(t).execute();
  }

  /** Revokes a token by id; returns its user, or undefined when there is no such live token. */
  async revokeToken(id: string): Promise<string | undefined> {
    const row = await this.db
      .updateTable('api_tokens')
      .set({ revoked_at: sql`now()` as unknown as string })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returning('user_id')
      .executeTakeFirst();
    return row?.user_id;
  }

  async listTokens(userId?: string) {
    let q = this.db
      .selectFrom('api_tokens')
      .select(['id', 'user_id', 'label', 'scope', 'expires_at', 'revoked_at', 'created_at'])
      .orderBy('created_at');
    if (userId) q = q.where('user_id', '=', userId);
    return q.execute();
  }

  async userExists(userId: string): Promise<boolean> {
    return !!(await this.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst());
  }
}
