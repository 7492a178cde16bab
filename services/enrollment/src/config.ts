import { BaseConfig } from '@studium/platform';

/** Environment of the enrollment service. */
export const EnrollmentConfig = BaseConfig.extend({});
export type EnrollmentConfig = typeof EnrollmentConfig._zod.output;

/** The service's PostgreSQL schema. */
export const SCHEMA = 'enrollment';
