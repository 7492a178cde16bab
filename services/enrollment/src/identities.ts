import type { OutputOf, Principal, whoami } from '@studium/contracts';
import { Failure } from '@studium/platform';
import type { IdentityCache } from './domain/identity-cache.ts';
import { resolveSpace } from './domain/space.ts';
import type { IdentityRepository } from './repositories/identity.repository.ts';

/** What whoami returns: the account, its organizations and the effective space. */
export type Identity = OutputOf<typeof whoami>;

/**
 * Identity reads behind the per-replica cache: whoami and the hot list tools (list_catalog,
 * list_my_courses) need the user's organizations, and every change to them is announced
 * (principal_changed), so the lists cost one query, not two.
 */
export class Identities {
  constructor(
    private readonly repo: IdentityRepository,
    private readonly cache: IdentityCache<Identity>,
  ) {}

  /** The user's identity, from the cache or the database; undefined when the user no longer exists. */
  async get(user: string): Promise<Identity | undefined> {
    const cached = this.cache.get(user);
    if (cached) return cached;
    const readAt = this.cache.mark();
    const row = await this.repo.findUserWithOrgs(user);
    if (!row) return undefined;
    const data: Identity = {
      user: row.id,
      full_name: row.full_name,
      organizations: row.organizations,
      space: row.space,
    };
    // The student chose an organization that is suspended now: the lists work in personal (space),
    // and whoami names the choice, so the agent can explain why the organization's courses are gone.
    const chosen = row.organizations.find((o) => o.name === row.selected_space);
    if (chosen?.suspended && row.space !== chosen.name) data.selected_space = chosen.name;
    this.cache.set(user, data, readAt);
    return data;
  }

  /** The identity straight from the database (writes check access against the current state). */
  async fresh(user: string): Promise<Identity | undefined> {
    this.cache.forget(user);
    return this.get(user);
  }

  /**
   * The caller's identity and space for a list or enroll call (see {@link resolveSpace}): 401 when
   * the user no longer exists, a refusal in `resolved` for a space they cannot use. `fresh` reads
   * past the cache (writes check access against the current state).
   */
  async spaceOf(principal: Principal, space: string | undefined, opts: { fresh?: boolean } = {}) {
    const me = opts.fresh ? await this.fresh(principal.user) : await this.get(principal.user);
    if (!me) throw new Failure(401, 'user no longer exists');
    return { me, resolved: resolveSpace(me.organizations, principal.space, space) };
  }

  forget(user: string): void {
    this.cache.forget(user);
  }
}
