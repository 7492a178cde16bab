import type { AccessProjection, Bus, Logger, Relay } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { LessonsConfig } from './config.ts';
import type { LessonsDb } from './db.ts';
import type { MarkContexts } from './mark-contexts.ts';
import type { Releases } from './releases.ts';
import type { AttemptRepository } from './repositories/attempt.repository.ts';
import type { CourseStates } from './repositories/course-state.ts';
import type { ReleaseRepository } from './repositories/release.repository.ts';
import type { RunRepository } from './repositories/run.repository.ts';
import type { SessionRepository } from './repositories/session.repository.ts';

/** What the lesson handlers share. */
export interface LessonsDeps {
  db: Kysely<LessonsDb>;
  bus: Bus;
  log: Logger;
  config: LessonsConfig;
  runs: RunRepository;
  sessions: SessionRepository;
  attempts: AttemptRepository;
  /** A student's state in a course in one statement (start_lesson, course_outline). */
  courseStates: CourseStates;
  releaseRows: ReleaseRepository;
  releases: Releases;
  access: AccessProjection;
  /** mark_goal's context of the sessions this replica wrote last. */
  markContexts: MarkContexts;
  /** This replica's outbox relay, woken by writes that commit events without NOTIFY (mark_goal). */
  relay: Pick<Relay, 'kick'>;
}
