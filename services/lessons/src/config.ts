import { BaseConfig } from '@studium/platform';
import { z } from 'zod';

/** Environment of the lessons service. */
export const LessonsConfig = BaseConfig.extend({
  /** How long start_lesson waits for the optional context of other services (homework, notes, reports). */
  CONTEXT_TIMEOUT_MS: z.coerce.number().int().positive().default(400),
  /** Trial lessons of the web chat (web_demo_exhausted after them). */
  WEB_DEMO_LESSONS: z.coerce.number().int().min(0).default(3),
  /** Sessions whose mark_goal context a replica keeps after writing (0: read it on every call). */
  MARK_CONTEXTS: z.coerce.number().int().min(0).default(5000),
  /**
   * How often the outbox relay looks for events nobody woke it for: each replica's commits wake its
   * own relay in process (no NOTIFY), so these are the events of a replica that stopped before
   * publishing them, and of scripts whose NOTIFY was missed.
   */
  OUTBOX_POLL_MS: z.coerce.number().int().positive().default(1000),
  /** How long after a write with events the relay is woken, so that the events of the writes meanwhile go out together. */
  OUTBOX_KICK_WINDOW_MS: z.coerce.number().int().min(0).default(10),
});
export type LessonsConfig = z.infer<typeof LessonsConfig>;

/** The service's PostgreSQL schema. */
export const SCHEMA = 'lessons';
