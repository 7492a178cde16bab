import { RELEASE_MAIL_QUEUE } from '@studium/contracts';
import { BaseConfig } from '@studium/platform';
import { z } from 'zod';

/**
 * Environment of the mailer: the whole base part (NATS with its user, Redis, the prefix; a pick of
 * it once dropped NATS_USER/NATS_PASSWORD, so the mailer never joined a bus with users), then SMTP
 * or the .eml directory. It opens no database; the base's database settings are simply unused.
 */
export const MailerConfig = BaseConfig.extend({
  /** `smtp://host:port` or `smtps://user:pass@host:port`; without it every e-mail is written to MAIL_DIR. */
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Studium <no-reply@studium.local>'),
  /** Where e-mails go as .eml files when SMTP_URL is not set. */
  MAIL_DIR: z.string().default('.studium/mail'),
  /** Jobs processed at once by one replica. */
  MAIL_CONCURRENCY: z.coerce.number().int().positive().default(4),
  /** BullMQ lock of a running job; renewed every half of it, so a dead worker's job is free after it. */
  MAIL_LOCK_MS: z.coerce.number().int().min(1000).default(15_000),
  /** How often workers take back jobs whose lock expired. */
  MAIL_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(5_000),
  /** Stalls a job survives before BullMQ fails it (enrollment re-drives an unsent one anyway). */
  MAIL_MAX_STALLED: z.coerce.number().int().min(0).default(3),
  /** How long the mailer retries reporting an outcome to enrollment before the job fails. */
  MAIL_REPORT_FOR_MS: z.coerce.number().int().positive().default(20_000),
  /** How long SIGTERM waits for the jobs in hand before the mailer exits anyway. */
  MAIL_STOP_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
});
export type MailerConfig = z.infer<typeof MailerConfig>;

/** The BullMQ queue of release e-mails under a subject prefix (enrollment produces into the same name). */
export function releaseMailQueueName(prefix: string): string {
  return prefix ? `${prefix}-${RELEASE_MAIL_QUEUE}` : RELEASE_MAIL_QUEUE;
}
