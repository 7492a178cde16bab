import type { list_catalog, list_my_courses, OutputOf, Principal } from '@studium/contracts';
import { type Endpoint, endpoint, Failure } from '@studium/platform';
import { conditionalList } from '../domain/list-etag.ts';
import type { SpaceScope } from '../domain/space.ts';
import type { Identities } from '../identities.ts';
import type { ListStampsRepository } from '../repositories/list-stamps.repository.ts';

type CourseList = typeof list_catalog | typeof list_my_courses;

/**
 * One of the student's course lists: the caller and space come from the identity cache (a space
 * they cannot use is refused), and the reply is answered conditionally under the list's ETag
 * (see {@link conditionalList}); `render` reads and shapes the rows only when the caller's kept
 * reply is not current.
 */
export function courseListEndpoint<C extends CourseList>(
  contract: C,
  identities: Identities,
  stamps: ListStampsRepository,
  render: (principal: Principal, scope: SpaceScope) => Promise<{ data: OutputOf<C>; until: number | null }>,
): Endpoint {
  return endpoint(
    contract,
    async ({ space }, { principal, ifNoneMatch }) => {
      if (!principal) throw new Failure(401, 'no principal');
      const { resolved } = await identities.spaceOf(principal, space);
      if (!resolved.ok) return resolved;
      const { scope } = resolved;
      return conditionalList({
        stamps,
        list: contract.name,
        user: principal.user,
        scope,
        ifNoneMatch,
        render: () => render(principal, scope),
      });
      // list_my_courses is asked by lessons for the student of its call (course_outline's programs).
    },
    { forwarded: contract.name === 'list_my_courses' },
  );
}
