import { BaseConfig } from '@studium/platform';
import { z } from 'zod';

/** Environment of the reporting service. */
export const ReportingConfig = BaseConfig.extend({
  /** org_report rows per page when the caller names no `limit`. */
  REPORT_PAGE_DEFAULT: z.coerce.number().int().min(1).max(1000).default(100),
  /** Deliveries of an event that fails on its own before the live consumer parks it as a dead letter. */
  EVENT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /** Delay before the second delivery of such an event; doubles each time, up to a minute. */
  EVENT_RETRY_DELAY_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
});
export type ReportingConfig = z.infer<typeof ReportingConfig>;

/** The service's PostgreSQL schema (the generation pointer; read models live in reporting_g<N>). */
export const SCHEMA = 'reporting';
