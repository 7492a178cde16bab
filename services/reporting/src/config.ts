import { BaseConfig } from '@studium/platform';
import { z } from 'zod';

/** Environment of the reporting service. */
export const ReportingConfig = BaseConfig.extend({
  /** org_report rows per page when the caller names no `limit`. */
  REPORT_PAGE_DEFAULT: z.coerce.number().int().min(1).max(1000).default(100),
});
export type ReportingConfig = z.infer<typeof ReportingConfig>;

/** The service's PostgreSQL schema (the generation pointer; read models live in reporting_g<N>). */
export const SCHEMA = 'reporting';
