import { type App, type ServiceDeps, startRelay } from '@studium/platform';
import { CoursesConfig } from './config.ts';
import type { CoursesDb } from './db.ts';
import { addNoteHandler } from './handlers/add-note.ts';
import { announceCourseHandler } from './handlers/announce-course.ts';
import { reviewNoteHandler, writeNoteHandler } from './handlers/cabinet-notes.ts';
import { courseNotesHandler } from './handlers/course-notes.ts';
import { courseReleaseHandler } from './handlers/course-release.ts';
import { courseReleasesHandler } from './handlers/course-releases.ts';
import { courseReportsHandler } from './handlers/course-reports.ts';
import { createCourseHandler } from './handlers/create-course.ts';
import { listCoursesHandler } from './handlers/list-courses.ts';
import { myReportsHandler } from './handlers/my-reports.ts';
import { publishCourseHandler } from './handlers/publish-course.ts';
import { publishReleaseHandler } from './handlers/publish-release.ts';
import { releaseContentHandler } from './handlers/release-content.ts';
import { replyNoteHandler } from './handlers/reply-note.ts';
import { reportIssueHandler } from './handlers/report-issue.ts';
import { resolveNoteHandler } from './handlers/resolve-note.ts';
import { resolveReportHandler } from './handlers/resolve-report.ts';
import { startSessionConsumer } from './handlers/session-started.ts';
import { takeClosedReportsHandler } from './handlers/take-closed-reports.ts';
import { courseTestersHandler, testerHandlers } from './handlers/testers.ts';
import { unpublishCourseHandler } from './handlers/unpublish-course.ts';
import { updateCourseHandler } from './handlers/update-course.ts';
import { coursesDeps } from './store.ts';

/** Migrations of the courses schema. */
export const MIGRATIONS = new URL('../migrations', import.meta.url).pathname;

/**
 * Registers the courses handlers on the bus and starts the outbox relay of the schema and the
 * consumer of lesson sessions. The store (repositories and the outbox) is built once here and
 * handed to the handlers with `transaction`; no handler sees the database itself.
 */
export async function createApp({ bus, nc, database, log, config, metrics }: ServiceDeps<CoursesDb>): Promise<App> {
  // Tests hand an empty config; every setting has a default.
  const cfg = CoursesConfig.parse(config ?? {});
  const deps = coursesDeps(database.db);
  const relay = await startRelay({ nc, pool: database.pool, schema: database.schema, prefix: bus.prefix, log });
  const service = await bus.serve('courses', [
    addNoteHandler(deps),
    announceCourseHandler(deps),
    courseNotesHandler(deps),
    courseReleaseHandler(deps),
    courseReleasesHandler(deps),
    createCourseHandler(deps),
    listCoursesHandler(deps),
    publishCourseHandler(deps, bus),
    replyNoteHandler(deps),
    resolveNoteHandler(deps),
    unpublishCourseHandler(deps),
    updateCourseHandler(deps),
    publishReleaseHandler(deps),
    releaseContentHandler(deps),
    reportIssueHandler(deps),
    myReportsHandler(deps),
    courseReportsHandler(deps),
    resolveReportHandler(deps),
    takeClosedReportsHandler(deps),
    writeNoteHandler(deps),
    reviewNoteHandler(deps),
    courseTestersHandler(deps),
    ...testerHandlers(deps, bus),
  ]);
  const sessions = await startSessionConsumer({
    nc,
    prefix: bus.prefix,
    db: database.db,
    log,
    metrics,
    maxAttempts: cfg.CONSUMER_MAX_ATTEMPTS,
    retryDelayMs: cfg.CONSUMER_RETRY_MS,
  });
  return {
    async stop() {
      await service.stop();
      await sessions.stop();
      await relay.stop();
    },
  };
}
