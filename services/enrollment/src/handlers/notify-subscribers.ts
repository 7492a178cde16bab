import { notifySubscribers, ok, type SubscriptionNotified } from '@studium/contracts';
import { checkDeadline, emitEvent, endpoint } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { EnrollmentDb } from '../db.ts';
import { releaseMailJob, releaseMailJobId } from '../domain/release-mail.ts';
import type { MailOutboxRepository } from '../repositories/mail-outbox.repository.ts';
import type { SubscriptionRepository } from '../repositories/subscription.repository.ts';

/**
 * enrollment.notify_subscribers (courses → enrollment on publish_course of an announcement): in
 * one transaction marks the pending subscriptions notified, writes one release e-mail per
 * subscriber to the mail outbox and one `subscription_notified` event each; after commit the
 * mail relay hands the e-mails to BullMQ. Called again, it finds nothing pending: `{ notified: 0 }`.
 */
export function notifySubscribersHandler(deps: {
  db: Kysely<EnrollmentDb>;
  subscriptions: SubscriptionRepository;
  mails: MailOutboxRepository;
  /** Wakes the mail relay after commit. */
  mailQueued: () => void;
}) {
  return endpoint(
    notifySubscribers,
    async (args, ctx) => {
      const notified = await deps.db.transaction().execute(async (trx) => {
        await deps.subscriptions.lockCourse(trx, args.course);
        // The lock may have been held past the caller's deadline: it has given up, so change nothing.
        checkDeadline(ctx);
        await deps.subscriptions.markReleased(trx, args.course);
        const subscribers = await deps.subscriptions.markNotified(trx, args.course);
        await deps.mails.add(
          trx,
          subscribers.map((s) => ({ job_id: releaseMailJobId(args.course, s.user), payload: releaseMailJob(s, args) })),
        );
        for (const s of subscribers) {
          const event: SubscriptionNotified = { user: s.user, course: args.course, at: s.at };
          await emitEvent(trx, 'enrollment.subscription_notified', event);
        }
        return subscribers.length;
      });
      if (notified) deps.mailQueued();
      return ok({ notified });
      // courses passes on the curator of its publish_course call.
    },
    { forwarded: true },
  );
}
