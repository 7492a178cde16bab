import { RELEASE_MAIL_QUEUE } from '@studium/contracts';
import { BaseConfig } from '@studium/platform';
import { z } from 'zod';

/** Environment of the mailer: Redis and the queue prefix, SMTP or the .eml directory, the sender. */
export const MailerConfig = BaseConfig.pick({
  REDIS_URL: true,
  SUBJECT_PREFIX: true,
  LOG_LEVEL: true,
  HEALTH_PORT: true,
}).extend({
  /** `smtp://host:port` or `smtps://user:pass@host:port`; without it every e-mail is written to MAIL_DIR. */
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Studium <no-reply@studium.local>'),
  /** Where e-mails go as .eml files when SMTP_URL is not set. */
  MAIL_DIR: z.string().default('.studium/mail'),
  /** Jobs processed at once by one replica. */
  MAIL_CONCURRENCY: z.coerce.number().int().positive().default(4),
});
export type MailerConfig = z.infer<typeof MailerConfig>;

/** The BullMQ queue of release e-mails under a subject prefix (enrollment produces into the same name). */
export function releaseMailQueueName(prefix: string): string {
  return prefix ? `${prefix}-${RELEASE_MAIL_QUEUE}` : RELEASE_MAIL_QUEUE;
}
