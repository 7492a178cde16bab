import { notify_when_released, ok } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { EnrollmentDb } from '../db.ts';
import type { Identities } from '../identities.ts';
import { courseNotUpcoming } from '../refusals.ts';
import type { AccessRepository } from '../repositories/access.repository.ts';
import type { CatalogRepository } from '../repositories/catalog.repository.ts';
import type { SubscriptionRepository } from '../repositories/subscription.repository.ts';

/**
 * notify_when_released: subscribes to the release e-mail of an announcement, or unsubscribes
 * (from any course, known or not). Repeating either changes nothing.
 */
export function notifyWhenReleasedHandler(
  db: Kysely<EnrollmentDb>,
  catalog: CatalogRepository,
  subscriptions: SubscriptionRepository,
  identities: Identities,
  access: AccessRepository,
) {
  return endpoint(notify_when_released, async ({ course, notify }, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const wanted = notify ?? true;
    const card = await catalog.findCard(course);
    // Visible = in the student's catalog of the selected space (list_catalog's rule): only such an
    // announcement can be subscribed to, and only such a course is named by its title.
    const { resolved } = await identities.spaceOf(principal, undefined, { fresh: true });
    const orgs = resolved.ok ? resolved.scope.catalogOrgs : [];
    const visible = !!card && card.status !== 'draft' && (orgs === null || (await access.isAllowed(course, orgs)));
    const title = visible && card ? card.title : course;
    if (wanted && (!visible || card?.status !== 'upcoming')) {
      return courseNotUpcoming(course, visible && card?.status === 'published' ? card.title : null);
    }
    // The catalog can lag a publication by a moment: under the course lock, a subscription that
    // comes after the e-mails went out is refused rather than left waiting forever.
    const released = await db.transaction().execute(async (trx) => {
      await subscriptions.lockCourse(trx, course);
      if (wanted && (await subscriptions.isReleased(trx, course))) return true;
      await subscriptions.setNotify(principal.user, course, wanted, trx);
      return false;
    });
    if (released) return courseNotUpcoming(course, title);
    return ok({ course, title, notify: wanted });
  });
}
