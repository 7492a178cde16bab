import type { Bus, Logger } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { AccessCache } from './access-cache.ts';
import type { LessonsConfig } from './config.ts';
import type { LessonsDb } from './db.ts';
import type { Releases } from './releases.ts';
import type { AttemptRepository } from './repositories/attempt.repository.ts';
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
  releaseRows: ReleaseRepository;
  releases: Releases;
  access: AccessCache;
  /** Whether mark_goal's write wakes every replica's outbox relay with pg_notify. */
  notifyOutbox: boolean;
  /** Called after a write with events committed (wakes this replica's relay). */
  afterWrite(): void;
}
