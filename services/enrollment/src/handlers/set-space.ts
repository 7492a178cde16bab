import { ok, PERSONAL, set_space } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import type { Kysely } from 'kysely';
import { announceAccess } from '../access-events.ts';
import type { EnrollmentDb } from '../db.ts';
import { spaceNotAvailable } from '../refusals.ts';
import { IdentityRepository } from '../repositories/identity.repository.ts';

/** set_space: stores the selected space per user (the edge is stateless, so not per MCP session). */
export function setSpaceHandler(
  db: Kysely<EnrollmentDb>,
  repo: IdentityRepository,
  principalChanged: (user: string) => void,
) {
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
    await db.transaction().execute(async (trx) => {
      await new IdentityRepository(trx).setSelectedSpace(principal.user, current);
      await announceAccess(trx, [principal.user]);
    });
    principalChanged(principal.user);
    return ok({ current });
  });
}
