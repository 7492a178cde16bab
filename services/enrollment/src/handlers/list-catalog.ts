import { list_catalog } from '@studium/contracts';
import { catalogCourse } from '../domain/course-views.ts';
import type { Identities } from '../identities.ts';
import type { CatalogRepository } from '../repositories/catalog.repository.ts';
import type { ListStampsRepository } from '../repositories/list-stamps.repository.ts';
import { courseListEndpoint } from './course-list.ts';

/**
 * list_catalog: published courses and announcements the student may take in the space, minus
 * the courses they already have there. Hot path: the identity comes from the cache and the
 * catalog with subscriptions and programs is one prepared query. The reply is tagged with the
 * list's ETag: a caller that holds the current one gets "not modified" after one stamp read.
 */
export function listCatalogHandler(identities: Identities, catalog: CatalogRepository, stamps: ListStampsRepository) {
  return courseListEndpoint(list_catalog, identities, stamps, async (principal, scope) => {
    const rows = await catalog.listFor({
      user: principal.user,
      catalogOrgs: scope.catalogOrgs,
      courseSpaces: scope.courseSpaces,
    });
    return { data: { space: scope.space, courses: rows.map((r) => catalogCourse(r)) }, until: null };
  });
}
