import { BaseConfig } from '@studium/platform';

/** Environment of the courses service. */
export const CoursesConfig = BaseConfig.extend({});
export type CoursesConfig = typeof CoursesConfig._zod.output;

/** The service's PostgreSQL schema. */
export const SCHEMA = 'courses';
