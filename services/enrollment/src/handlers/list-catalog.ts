import { list_catalog, ok } from '@studium/contracts';
import { endpoint, Failure, notModified, tagged } from '@studium/platform';
import { catalogCourse } from '../domain/course-views.ts';
import { isCurrent, listEtag, listEtagBase } from '../domain/list-etag.ts';
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
    // Stamps before data: the rows read below are never older than the ETag they go out under.
    const now = await stamps.read(principal.user);
    const base = listEtagBase('list_catalog', principal.user, scope, now);
    if (isCurrent(ifNoneMatch, base, now.now)) return notModified(ifNoneMatch);
    const rows = await catalog.listFor({
      user: principal.user,
      catalogOrgs: scope.catalogOrgs,
      courseSpaces: scope.courseSpaces,
    });
    return tagged(listEtag(base, null), ok({ space: scope.space, courses: rows.map((r) => catalogCourse(r)) }));
  });
}
