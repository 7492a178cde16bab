import { ok, whoami } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import type { Identities } from '../identities.ts';

/** whoami: the account, its organizations (role, suspended) and the effective selected space. */
export function whoamiHandler(identities: Identities) {
  return endpoint(
    whoami,
    async (_args, { principal }) => {
      if (!principal) throw new Failure(401, 'no principal');
      const data = await identities.get(principal.user);
      if (!data) throw new Failure(401, 'user no longer exists');
      return ok(data);
      // Asked by knowledge and homework for the caller of their own call (memberships).
    },
    { forwarded: true },
  );
}
