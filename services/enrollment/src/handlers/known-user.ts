import { isAuthor, knownUser, ok } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import type { IdentityRepository } from '../repositories/identity.repository.ts';

/**
 * enrollment.known_user: whether a login is a platform user (the login is the user's id). Asked by
 * courses for the curator of a grant_tester call, so only an author learns which logins exist.
 */
export function knownUserHandler(repo: IdentityRepository) {
  return endpoint(
    knownUser,
    async ({ user }, { principal }) => {
      if (!principal || !isAuthor(principal.roles)) throw new Failure(403, 'author role required');
      return ok({ known: await repo.userExists(user.trim()) });
    },
    // courses passes on the curator of its grant_tester call.
    { forwarded: true },
  );
}
