import { BaseConfig } from '@studium/platform';
import { z } from 'zod';

/** Environment of the homework service. */
export const HomeworkConfig = BaseConfig.extend({
  /** Where the platform's web pages and the edge live: lesson links and file download URLs start here. */
  PUBLIC_URL: z.string().default('http://127.0.0.1:8080'),
  /** HMAC key of file download URLs; the edge checks them with the same key. */
  FILE_URL_SECRET: z.string().optional(),
  /** How long an issued download URL opens its file. */
  FILE_URL_TTL_S: z.coerce.number().int().positive().default(3600),
  /** How often objects the edge staged but no save recorded are looked for. */
  ORPHAN_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(3_600_000),
  /** How old such an object must be before it is removed (a save in progress keeps its bytes). */
  ORPHAN_MIN_AGE_MS: z.coerce.number().int().min(0).default(86_400_000),
  /** How long the active release of a course is trusted before asking courses again. */
  RELEASE_TTL_MS: z.coerce.number().int().min(0).default(2000),
  /** How long update_artifact waits for the lesson's progress from lessons before answering without it. */
  PROGRESS_TIMEOUT_MS: z.coerce.number().int().positive().default(400),
});
export type HomeworkConfig = z.infer<typeof HomeworkConfig>;

/** The service's PostgreSQL schema. */
export const SCHEMA = 'homework';
