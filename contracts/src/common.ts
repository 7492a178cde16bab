import { z } from 'zod';

/**
 * Refusal codes that more than one tool shares (spec 000, "Отказы цепочки урока",
 * "Отказы курса из релиза" and the access refusals of every course tool).
 */
export const COMMON_REFUSALS = [
  'not_enrolled',
  'organization_suspended',
  'space_not_available',
  'course_not_in_space',
  'course_not_released',
  'lesson_not_in_release',
  'run_archived',
  'busy',
  'course_not_found',
  'course_from_release',
  'course_has_content',
  'invalid_target',
  'note_target_unknown',
] as const;

/** The /kb refusal the edge gives a read-scoped token calling a write tool (the spec's codes there are camelCase). */
export const READ_ONLY_TOKEN = 'readOnlyToken';

/** A refusal the edge produces itself when arguments fail the schema (missing parameter, wrong JSON type). */
export const INVALID_ARGUMENTS = 'invalid_arguments';

/** `space`: an organization name from whoami, or "personal". Optional everywhere it appears. */
export const SpaceArg = z.string().describe('Организация из whoami или personal; без него — выбранное учеником.');

/** An identifier of a course, lesson, session or attempt, as returned by earlier calls. */
export const Id = z.string();

/** ISO 8601 timestamp with time zone. */
export const Timestamp = z.string();

/** BullMQ queue of release e-mails (enrollment's relay produces, mailer consumes); prefixed per deployment. */
export const RELEASE_MAIL_QUEUE = 'release-mail';

/** One release e-mail job. */
export const ReleaseMailJob = z.object({
  to: z.string(),
  full_name: z.string(),
  course: z.string(),
  title: z.string(),
  summary: z.string(),
  /**
   * The delivery this job sends (enrollment's first job id for it): the same across re-drives
   * under new job ids, so the Message-ID stays stable and the outcome is reported against it.
   */
  delivery: z.string().max(600).optional(),
});
export type ReleaseMailJob = z.infer<typeof ReleaseMailJob>;
