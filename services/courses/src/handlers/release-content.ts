import { ok, refuse, releaseContent } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { CoursesDb } from '../db.ts';
import { courseNotFound, courseNotReleased } from '../refusals.ts';
import { store } from '../store.ts';

/**
 * courses.release_content (lessons, homework → courses): the content of the course's active
 * release, or of a named release of the course. Service-to-service: no principal is needed, and
 * the answer carries quiz answers, so it is never an MCP tool.
 */
export function releaseContentHandler(db: Kysely<CoursesDb>) {
  const s = store(db);
  return endpoint(releaseContent, async (args) => {
    const course = await s.courses.find(args.course);
    if (!course) return courseNotFound(args.course);
    const found =
      args.release === undefined
        ? await s.releases.active(course.id)
        : await s.releases.withContent(course.id, args.release);
    if (!found) {
      if (args.release === undefined) return courseNotReleased(course.id);
      return refuse('release_not_found', `У курса ${course.id} нет релиза ${args.release}`, {
        course: course.id,
        release: args.release,
      });
    }
    return ok({
      course: course.id,
      release: found.id,
      version: found.version,
      digest: found.digest,
      active: found.active,
      published_at: new Date(found.published_at).toISOString(),
      content: found.content,
    });
  });
}
