import { course_releases, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import { courseNotFound } from '../refusals.ts';
import type { CoursesDeps } from '../store.ts';

/** course_releases: the course's versions, newest first (content is kept for the active one only). */
export function courseReleasesHandler({ store: s }: CoursesDeps) {
  return endpoint(course_releases, async (args, ctx) => {
    author(ctx);
    const course = await s.courses.find(args.course);
    if (!course) return courseNotFound(args.course);
    const releases = await s.releases.list(args.course);
    return ok({
      // The course's title, for the people who read the history (the cabinet's course page).
      title: course.title,
      releases: releases.map((r) => ({
        release: r.id,
        version: r.version,
        published_at: r.published_at,
        published_by: r.published_by,
        digest: r.digest,
        commit: r.commit,
        document_key: r.document_key,
        active: r.active,
      })),
    });
  });
}
