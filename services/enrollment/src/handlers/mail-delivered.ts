import { mailDelivered, mailDeliveryState, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { MailOutboxRepository } from '../repositories/mail-outbox.repository.ts';

/**
 * enrollment.mail_delivery_state (mailer → enrollment, before it sends): a delivery already sent
 * or rejected is not sent again, whichever job (a stalled one run again, a re-drive) carries it.
 */
export function mailDeliveryStateHandler(mails: MailOutboxRepository) {
  return endpoint(mailDeliveryState, async (args) => ok({ state: await mails.state(args.delivery) }));
}

/**
 * enrollment.mail_delivered (mailer → enrollment, right after the SMTP server's answer): closes
 * the delivery with one UPDATE that commits on its own, so this request's round trip is all the
 * platform adds to the window in which a crash can cause a resend (the rest is the SMTP server's
 * time from the end of DATA to its 250: docs/operations.md).
 */
export function mailDeliveredHandler(mails: MailOutboxRepository) {
  return endpoint(mailDelivered, async (args) =>
    ok({ recorded: await mails.settle(args.delivery, args.outcome, args.detail ?? null) }),
  );
}
