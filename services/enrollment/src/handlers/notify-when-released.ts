import { notify_when_released, ok, refuse } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { EnrollmentDb } from '../db.ts';
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
) {
  return endpoint(notify_when_released, async ({ course, notify }, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const wanted = notify ?? true;
    const card = await catalog.findCard(course);
    if (wanted && card?.status !== 'upcoming') {
      const why =
        card?.status === 'published'
          ? `Курс «${card.title}» уже открыт: записывайте через enroll`
          : `Курс «${card?.title ?? course}» не анонсирован: его сняли или его нет`;
      return refuse('course_not_upcoming', why, { course });
    }
    // The catalog can lag a publication by a moment: under the course lock, a subscription that
    // comes after the e-mails went out is refused rather than left waiting forever.
    const released = await db.transaction().execute(async (trx) => {
      await subscriptions.lockCourse(trx, course);
      if (wanted && (await subscriptions.isReleased(trx, course))) return true;
      await subscriptions.setNotify(principal.user, course, wanted, trx);
      return false;
    });
    if (released) {
      return refuse('course_not_upcoming', `Курс «${card?.title ?? course}» уже открыт: записывайте через enroll`, {
        course,
      });
    }
    return ok({ course, title: card?.title ?? course, notify: wanted });
  });
}
