import { type App, type ServiceDeps, startRelay } from '@studium/platform';
import type { CoursesDb } from './db.ts';
import { addNoteHandler } from './handlers/add-note.ts';
import { announceCourseHandler } from './handlers/announce-course.ts';
import { courseNotesHandler } from './handlers/course-notes.ts';
import { courseReleaseHandler } from './handlers/course-release.ts';
import { courseReleasesHandler } from './handlers/course-releases.ts';
import { createCourseHandler } from './handlers/create-course.ts';
import { listCoursesHandler } from './handlers/list-courses.ts';
import { publishCourseHandler } from './handlers/publish-course.ts';
import { publishReleaseHandler } from './handlers/publish-release.ts';
import { releaseContentHandler } from './handlers/release-content.ts';
import { replyNoteHandler } from './handlers/reply-note.ts';
import { resolveNoteHandler } from './handlers/resolve-note.ts';
import { unpublishCourseHandler } from './handlers/unpublish-course.ts';
import { updateCourseHandler } from './handlers/update-course.ts';

/** Migrations of the courses schema. */
export const MIGRATIONS = new URL('../migrations', import.meta.url).pathname;

/** Registers the courses handlers on the bus and starts the outbox relay of the schema. */
export async function createApp({ bus, nc, database, log }: ServiceDeps<CoursesDb>): Promise<App> {
  const db = database.db;
  const relay = await startRelay({ nc, pool: database.pool, schema: database.schema, prefix: bus.prefix, log });
  const service = await bus.serve('courses', [
    addNoteHandler(db),
    announceCourseHandler(db),
    courseNotesHandler(db),
    courseReleaseHandler(db),
    courseReleasesHandler(db),
    createCourseHandler(db),
    listCoursesHandler(db),
    publishCourseHandler(db, bus),
    replyNoteHandler(db),
    resolveNoteHandler(db),
    unpublishCourseHandler(db),
    updateCourseHandler(db),
    publishReleaseHandler(db),
    releaseContentHandler(db),
  ]);
  return {
    async stop() {
      await service.stop();
      await relay.stop();
    },
  };
}
