import { mailDelivered, mailDeliveryState } from '@studium/contracts';
import type { Bus, Logger } from '@studium/platform';

/** Enrollment's record of release e-mail deliveries (the truth), as the mailer reads and closes it. */
export interface Deliveries {
  /** pending, sent, rejected or unknown; throws when enrollment does not answer. */
  state(delivery: string): Promise<'pending' | 'sent' | 'rejected' | 'unknown'>;
  /**
   * Closes the delivery; retried for up to `reportForMs` while enrollment does not answer, then
   * throws (the job then fails and the e-mail may go out again: see docs/operations.md).
   */
  settle(delivery: string, outcome: 'sent' | 'rejected', detail?: string): Promise<boolean>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Deliveries over the bus (enrollment.mail_delivery_state and enrollment.mail_delivered). */
export function busDeliveries(bus: Bus, log: Logger, reportForMs: number): Deliveries {
  return {
    async state(delivery) {
      const reply = await bus.request(mailDeliveryState, null, { delivery }, { idempotent: true });
      if (!reply.ok) throw new Error(`mail_delivery_state refused: ${reply.error.code}`);
      return reply.data.state;
    },
    async settle(delivery, outcome, detail) {
      const until = Date.now() + reportForMs;
      for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
        try {
          const reply = await bus.request(mailDelivered, null, { delivery, outcome, detail: detail?.slice(0, 500) });
          if (!reply.ok) throw new Error(`mail_delivered refused: ${reply.error.code}`);
          return reply.data.recorded;
        } catch (err) {
          if (Date.now() + delay > until) throw err;
          log.warn({ err, delivery }, 'mailer: could not report the outcome yet, retrying');
          await sleep(delay);
        }
      }
    },
  };
}
