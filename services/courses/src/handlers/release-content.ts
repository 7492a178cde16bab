import { ok, releaseContent } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { courseNotFound, courseNotReleased, releaseNotFound } from '../refusals.ts';
import type { CoursesDeps } from '../store.ts';

/**
 * courses.release_content (lessons, homework → courses): the content of the course's active
 * release, or of a named release of the course. Service-to-service: no principal is needed, and
 * the answer carries quiz answers, so it is never an MCP tool.
 */
export function releaseContentHandler({ store: s }: CoursesDeps) {
  return endpoint(releaseContent, async (args) => {
    const course = await s.courses.find(args.course);
    if (!course) return courseNotFound(args.course);
    const found =
      args.release === undefined
        ? await s.releases.active(course.id)
        : await s.releases.withContent(course.id, args.release);
    if (!found) {
      if (args.release === undefined) return courseNotReleased(course.id);
      return releaseNotFound(course.id, args.release);
    }
    return ok({
      course: course.id,
      release: found.id,
      version: found.version,
      digest: found.digest,
      active: found.active,
      // Read before the release: a later activation has a higher revision than this.
      activation: course.card_revision,
      published_at: new Date(found.published_at).toISOString(),
      content: found.content,
    });
  });
}
