import { PRINCIPAL_CHANGED } from '@studium/contracts';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { EnrollmentDb } from './db.ts';
import { newToken } from './domain/tokens.ts';
import { IdentityRepository } from './repositories/identity.repository.ts';

/**
 * Administrative operations of the enrollment context (the admin CLI and the demo seed use them).
 * They write the enrollment schema directly, as the service itself would, and announce principal
 * changes on NATS when a connection is given so edges drop cached principals at once.
 */
export class EnrollmentAdmin {
  private readonly repo: IdentityRepository;

  constructor(
    db: Kysely<EnrollmentDb>,
    private readonly notify?: { nc: NatsConnection; prefix: string },
  ) {
    this.repo = new IdentityRepository(db);
  }

  private changed(user: string): void {
    if (!this.notify) return;
    const subject = this.notify.prefix ? `${this.notify.prefix}.${PRINCIPAL_CHANGED}` : PRINCIPAL_CHANGED;
    this.notify.nc.publish(subject, JSON.stringify({ user }));
  }

  /** Creates or updates a user with platform roles. */
  async upsertUser(id: string, fullName: string, roles: string[]): Promise<void> {
    await this.repo.upsertUser({ id, full_name: fullName, roles });
    this.changed(id);
  }

  /** Creates or updates an organization. */
  async upsertOrganization(name: string, title: string, suspended?: boolean): Promise<void> {
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name) || name === 'personal') {
      throw new Error(`organization name must be lowercase letters, digits, - or _, and not "personal": ${name}`);
    }
    await this.repo.upsertOrganization({ name, title, suspended });
    for (const user of await this.repo.membersOf(name)) this.changed(user);
  }

  /** Suspends or reinstates an organization (enrollments stay; access follows the flag). */
  async setSuspended(org: string, suspended: boolean): Promise<void> {
    for (const user of await this.repo.setSuspended(org, suspended)) this.changed(user);
  }

  /** Adds a user to an organization as manager or member. */
  async addMember(org: string, user: string, role: 'manager' | 'member'): Promise<void> {
    await this.repo.upsertMembership({ org, user_id: user, role });
    this.changed(user);
  }

  async removeMember(org: string, user: string): Promise<void> {
    await this.repo.removeMembership(user, org);
    this.changed(user);
  }

  /** Issues a token; the secret is returned once and only its hash is stored. */
  async issueToken(
    user: string,
    opts: { scope?: 'read' | 'write'; label?: string; expiresAt?: string | null } = {},
  ): Promise<{ id: string; token: string }> {
    if (!(await this.repo.userExists(user))) throw new Error(`no such user: ${user}`);
    const t = newToken();
    await this.repo.insertToken({
      id: t.id,
      user_id: user,
      token_hash: t.hash,
      label: opts.label ?? '',
      scope: opts.scope ?? 'write',
      expires_at: opts.expiresAt ?? null,
    });
    return { id: t.id, token: t.secret };
  }

  /** Revokes a token; edges drop the user's cached principal immediately. */
  async revokeToken(id: string): Promise<boolean> {
    const user = await this.repo.revokeToken(id);
    if (user) this.changed(user);
    return !!user;
  }

  listTokens(user?: string) {
    return this.repo.listTokens(user);
  }
}
