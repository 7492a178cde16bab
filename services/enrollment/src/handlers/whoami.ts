import { type OutputOf, ok, whoami } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import type { IdentityCache } from '../domain/identity-cache.ts';
import type { IdentityRepository } from '../repositories/identity.repository.ts';

/** whoami: the account, its organizations (role, suspended) and the effective selected space. */
export function whoamiHandler(repo: IdentityRepository, cache: IdentityCache<OutputOf<typeof whoami>>) {
  return endpoint(whoami, async (_args, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const cached = cache.get(principal.user);
    if (cached) return ok(cached);
    const user = await repo.findUserWithOrgs(principal.user);
    if (!user) throw new Failure(401, 'user no longer exists');
    const data = { user: user.id, full_name: user.full_name, organizations: user.organizations, space: user.space };
    cache.set(principal.user, data);
    return ok(data);
  });
}
