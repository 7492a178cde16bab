import { course_release, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import { lessonsOf } from '../domain/release-index.ts';
import { agentPackage, chaptersView, documentView, lessonView } from '../domain/release-view.ts';
import { courseNotFound, courseNotReleased, lessonNotInRelease } from '../refusals.ts';
import type { CoursesDeps } from '../store.ts';

/**
 * course_release: the active release with quiz answers — author roles only (403 for anyone else,
 * even if a call got past the edge). With `lesson`: that lesson and its agent package.
 */
export function courseReleaseHandler({ store: s }: CoursesDeps) {
  return endpoint(course_release, async (args, ctx) => {
    author(ctx);
    const course = await s.courses.find(args.course);
    if (!course) return courseNotFound(args.course);
    const active = await s.releases.active(course.id);
    if (!active) return courseNotReleased(course.id);
    const release = active.content;
    const card = {
      course: course.id,
      course_key: release.course.key,
      title: course.title,
      release: active.id,
      version: active.version,
      published_at: active.published_at,
      published_by: active.published_by,
    };
    const lessons = lessonsOf(release);
    if (args.lesson === undefined) {
      return ok({
        course: card,
        chapters: chaptersView(release),
        lessons: lessons.map((l) => lessonView(release, l)),
        document: documentView(release),
      });
    }
    const found = lessons.find((l) => l.lesson.key === args.lesson);
    if (!found) return lessonNotInRelease(course.id, args.lesson, active.id);
    return ok({ course: card, lesson: lessonView(release, found), agent: agentPackage(release, found.lesson) });
  });
}
