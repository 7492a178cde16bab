import { course_outline, lessonId, type OutputOf, ok } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import { courseStanding, programLock, unpassableLessons } from '../course-progress.ts';
import type { LessonsDeps } from '../deps.ts';
import { type Mark, objectiveStatus } from '../domain/lesson-progress.ts';
import { refusals } from '../refusals.ts';
import { passedIn } from '../repositories/course-state.ts';
import { checkAccess } from '../session-context.ts';
import { homeworkTask } from './start-view.ts';

type Out = OutputOf<typeof course_outline>;

/**
 * course_outline: chapters, lessons and objective statuses from the active release and the
 * student's runs. It only reads: no run is created or checked against the release.
 */
export function courseOutlineHandler(deps: LessonsDeps) {
  return endpoint(course_outline, async ({ course }, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const user = principal.user;
    // One statement for the student's state in the course; the programs come with the access check.
    const state = await deps.courseStates.of(user, course);
    const [access, active] = await Promise.all([
      checkAccess(deps, principal, course, null, state.courseSpace),
      deps.releases.activeFrom(course, state.activeRelease),
    ]);
    if (!access.ok) return access;
    if (!active.ok) return refusals.courseNotReleased(course);
    const release = active.data;
    const { runs, marks, last } = state;
    const byKey = new Map(runs.map((r) => [r.lesson_key, r]));
    const passed = passedIn(state);
    // A failed lesson (required quiz exhausted) is never current: start_lesson goes past it too.
    const failed = unpassableLessons(state, release);
    const current =
      last?.course === course &&
      !passed.has(last.lesson_key) &&
      !failed.has(last.lesson_key) &&
      release.lessons.has(last.lesson_key)
        ? last.lesson_key
        : courseStanding(release.order, passed, failed).next;
    const lock = await programLock(deps, user, access.data);
    const sections = release.content.document?.sections ?? [];
    const chapters: Out['chapters'] = release.content.chapters.map((ch) => {
      const lessons = ch.lessons.map((l) => {
        const run = byKey.get(l.key);
        const m = (run && marks.get(run.id)) || new Map<string, Mark>();
        return {
          id: lessonId(course, l.key),
          key: l.key,
          title: l.title,
          hook: l.hook || null,
          completed: passed.has(l.key),
          failed: failed.has(l.key),
          current: l.key === current,
          objectives: l.objectives.map((o) => ({ key: o.key, text: o.text, status: objectiveStatus(o.items, m) })),
          blocks: sections
            .filter((s) => s.lesson === l.key)
            .map((s) => ({ artifact: release.content.document?.key as string, key: s.key, title: s.title })),
          homework: homeworkTask(l),
        };
      });
      return {
        key: ch.key,
        title: ch.title,
        description: ch.description || null,
        lessons_started: ch.lessons.filter((l) => byKey.has(l.key)).length,
        lessons_completed: ch.lessons.filter((l) => passed.has(l.key)).length,
        lessons,
      };
    });
    return ok({
      course,
      title: release.content.course.title,
      chapters,
      programs: access.data.programs ?? [],
      locked_by: lock ? { course: lock.course, title: lock.title } : null,
    });
  });
}
