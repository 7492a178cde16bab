import { list_catalog } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import { catalogCourse } from '../domain/course-views.ts';
import { conditionalList } from '../domain/list-etag.ts';
import type { Identities } from '../identities.ts';
import type { CatalogRepository } from '../repositories/catalog.repository.ts';
import type { ListStampsRepository } from '../repositories/list-stamps.repository.ts';

/**
 * list_catalog: published courses and announcements the student may take in the space, minus
 * the courses they already have there. Hot path: the identity comes from the cache and the
 * catalog with subscriptions and programs is one prepared query. The reply is tagged with the
 * list's ETag: a caller that holds the current one gets "not modified" after one stamp read.
 */
export function listCatalogHandler(identities: Identities, catalog: CatalogRepository, stamps: ListStampsRepository) {
  return endpoint(list_catalog, async ({ space }, { principal, ifNoneMatch }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const { resolved } = await identities.spaceOf(principal, space);
    if (!resolved.ok) return resolved;
    const { scope } = resolved;
    return conditionalList({
      stamps,
      list: 'list_catalog',
      user: principal.user,
      scope,
      ifNoneMatch,
      render: async () => {
        const rows = await catalog.listFor({
          user: principal.user,
          catalogOrgs: scope.catalogOrgs,
          courseSpaces: scope.courseSpaces,
        });
        return { data: { space: scope.space, courses: rows.map((r) => catalogCourse(r)) }, until: null };
      },
    });
  });
}
