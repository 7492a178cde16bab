import { list_catalog, ok } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import { catalogCourse } from '../domain/course-views.ts';
import type { Identities } from '../identities.ts';
import type { CatalogRepository } from '../repositories/catalog.repository.ts';

/**
 * list_catalog: published courses and announcements the student may take in the space, minus
 * the courses they already have there. Hot path: the identity comes from the cache and the
 * catalog with subscriptions and programs is one prepared query.
 */
export function listCatalogHandler(identities: Identities, catalog: CatalogRepository) {
  return endpoint(list_catalog, async ({ space }, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const { resolved } = await identities.spaceOf(principal, space);
    if (!resolved.ok) return resolved;
    const { scope } = resolved;
    const rows = await catalog.listFor({
      user: principal.user,
      catalogOrgs: scope.catalogOrgs,
      courseSpaces: scope.courseSpaces,
    });
    return ok({ space: scope.space, courses: rows.map((r) => catalogCourse(r)) });
  });
}
