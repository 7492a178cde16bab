import { ok, PERSONAL, set_space } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import { spaceNotAvailable } from '../refusals.ts';
import type { IdentityRepository } from '../repositories/identity.repository.ts';

/** set_space: stores the selected space per user (the edge is stateless, so not per MCP session). */
export function setSpaceHandler(repo: IdentityRepository, principalChanged: (user: string) => void) {
  return endpoint(set_space, async ({ space }, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const wanted = space.trim();
    if (wanted.toLowerCase() !== PERSONAL) {
      const membership = await repo.findMembership(principal.user, wanted);
      if (!membership || membership.suspended) {
        const user = await repo.findUserWithOrgs(principal.user);
        const available = [PERSONAL, ...(user?.organizations ?? []).filter((o) => !o.suspended).map((o) => o.name)];
        return spaceNotAvailable(wanted, available, membership ? membership.title : null);
      }
    }
    const current = wanted.toLowerCase() === PERSONAL ? PERSONAL : wanted;
    await repo.setSelectedSpace(principal.user, current);
    principalChanged(principal.user);
    return ok({ current });
  });
}
