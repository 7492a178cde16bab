import { BaseConfig } from '@studium/platform';
import { z } from 'zod';

/** Environment of the enrollment service. */
export const EnrollmentConfig = BaseConfig.extend({
  /** Attempts of a release e-mail job (the mailer retries with exponential backoff). */
  MAIL_ATTEMPTS: z.coerce.number().int().min(1).default(5),
  /** First backoff delay of a failed release e-mail; doubles on each attempt. */
  MAIL_BACKOFF_MS: z.coerce.number().int().min(0).default(30_000),
  /** How often the mail relay looks for rows a commit did not hand over at once (crash, Redis down). */
  MAIL_RELAY_INTERVAL_MS: z.coerce.number().int().positive().default(2_000),
  /**
   * An open delivery (the mailer reported no outcome) enqueued longer ago than this is checked
   * against BullMQ and, when its job is no longer alive (failed, stalled out, lost), enqueued again.
   */
  MAIL_REDRIVE_AFTER_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * How long finished mail jobs stay in Redis. While a job is kept, re-adding its jobId is a
   * no-op; the database (notified_at, mail_outbox outcome) is the truth of every delivery.
   */
  MAIL_KEEP_JOBS_S: z.coerce
    .number()
    .int()
    .positive()
    .default(14 * 24 * 3600),
});
export type EnrollmentConfig = z.infer<typeof EnrollmentConfig>;

/** The service's PostgreSQL schema. */
export const SCHEMA = 'enrollment';
