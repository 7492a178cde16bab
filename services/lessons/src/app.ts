import { AccessProjection, type App, type ServiceDeps, startRelay } from '@studium/platform';
import { LessonsConfig } from './config.ts';
import type { LessonsDb } from './db.ts';
import type { LessonsDeps } from './deps.ts';
import { completeLessonHandler } from './handlers/complete-lesson.ts';
import { courseOutlineHandler } from './handlers/course-outline.ts';
import { goalRunsHandler } from './handlers/goal-runs.ts';
import { lessonItemHandler } from './handlers/lesson-item.ts';
import { markGoalHandler } from './handlers/mark-goal.ts';
import { passCountsHandler } from './handlers/pass-counts.ts';
import { startReleaseConsumer } from './handlers/release-published.ts';
import { requestQuizHandler } from './handlers/request-quiz.ts';
import { resetProgressHandler } from './handlers/reset-progress.ts';
import { sessionCourseHandler } from './handlers/session-course.ts';
import { sessionProgressHandler } from './handlers/session-progress.ts';
import { startLessonHandlers } from './handlers/start-lesson.ts';
import { submitAnswerHandler } from './handlers/submit-answer.ts';
import { MarkContexts } from './mark-contexts.ts';
import { Releases } from './releases.ts';
import { AttemptRepository } from './repositories/attempt.repository.ts';
import { CourseStates } from './repositories/course-state.ts';
import { ReleaseRepository } from './repositories/release.repository.ts';
import { RunRepository } from './repositories/run.repository.ts';
import { SessionRepository } from './repositories/session.repository.ts';

/** Durable name of the access projection's consumer (replicas share it). */
export const ACCESS_CONSUMER = 'lessons-access';

/** Migrations of the lessons schema. */
export const MIGRATIONS = new URL('../migrations', import.meta.url).pathname;

/** A started lessons service; tests flush its outbox relay instead of waiting for it. */
export interface LessonsApp extends App {
  /** Publishes pending domain events now. */
  flush(): Promise<void>;
}

/** Registers the lesson tools on the bus and starts the outbox relay and the release consumer. */
export async function createApp({
  bus,
  nc,
  database,
  log,
  config,
  metrics,
}: ServiceDeps<LessonsDb>): Promise<LessonsApp> {
  // Tests hand an empty config; every setting has a default.
  const cfg = LessonsConfig.parse(config ?? {});
  const db = database.db;
  const releaseRows = new ReleaseRepository(db);
  const deps: LessonsDeps = {
    db,
    bus,
    log,
    config: cfg,
    runs: new RunRepository(db, database.pool),
    sessions: new SessionRepository(db),
    attempts: new AttemptRepository(db),
    courseStates: new CourseStates(database.pool),
    releaseRows,
    releases: new Releases(bus, releaseRows),
    // Course access from the projection of enrollment's access documents (no request per call).
    access: new AccessProjection({
      nc,
      bus,
      db: db as never,
      durable: ACCESS_CONSUMER,
      log,
      metrics,
      maxAttempts: cfg.CONSUMER_MAX_ATTEMPTS,
      retryDelayMs: cfg.CONSUMER_RETRY_MS,
    }),
    markContexts: new MarkContexts(cfg.MARK_CONTEXTS),
    // Replaced by the relay once it runs (below); a write cannot come before the service serves.
    relay: { kick: () => {} },
  };
  const relay = await startRelay({
    nc,
    pool: database.pool,
    schema: database.schema,
    prefix: bus.prefix,
    log,
    intervalMs: cfg.OUTBOX_POLL_MS,
    // The events of every write within the window go out in one relay pass (one transaction and
    // one socket write) instead of one pass each.
    wakeWindowMs: cfg.OUTBOX_KICK_WINDOW_MS,
  });
  // mark_goal writes its events inside an SQL function, which the pool's watcher does not see.
  deps.relay = { kick: relay.wake };
  const consumer = await startReleaseConsumer(deps, nc, metrics);
  await deps.access.start();
  const service = await bus.serve('lessons', [
    ...startLessonHandlers(deps),
    lessonItemHandler(deps),
    sessionCourseHandler(deps),
    sessionProgressHandler(deps),
    markGoalHandler(deps),
    requestQuizHandler(deps),
    submitAnswerHandler(deps),
    completeLessonHandler(deps),
    courseOutlineHandler(deps),
    goalRunsHandler(deps),
    passCountsHandler(deps),
    resetProgressHandler(deps),
  ]);
  return {
    async flush() {
      await relay.flush();
    },
    async stop() {
      await service.stop();
      await deps.access.stop();
      await consumer.stop();
      await relay.stop();
    },
  };
}
