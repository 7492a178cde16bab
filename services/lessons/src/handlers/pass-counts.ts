import { ok, pass_counts } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import { sql } from 'kysely';
import type { LessonsDeps } from '../deps.ts';
import { STAFF } from './goal-runs.ts';

/**
 * pass_counts (the cabinet's passes page): per lesson of the active release, the live runs and the
 * passed ones, and per goal item the runs that have it done — counted over every run of the course
 * in one statement, with goal_runs' access rule (the course's curators and staff; 403 otherwise).
 */
export function passCountsHandler(deps: LessonsDeps) {
  return endpoint(pass_counts, async (args, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const active = await deps.releases.active(args.course);
    if (!active.ok) return active;
    const release = active.data;
    const staff = principal.roles.some((r) => STAFF.includes(r));
    if (!staff && !release.content.course.curators.includes(principal.user)) {
      throw new Failure(403, 'pass_counts: not a curator of this course');
    }
    const { rows } = await sql<{ lesson_key: string; goal: string | null; runs: number; passed: number; done: number }>`
      select r.lesson_key, m.goal,
        count(distinct r.id)::int as runs,
        count(distinct r.id) filter (where r.status = 'passed')::int as passed,
        count(distinct r.id) filter (where m.status = 'done')::int as done
      from runs r left join goal_marks m on m.run_id = r.id
      where r.course = ${args.course} and r.archived_at is null
        and (${args.lesson ?? null}::text is null or r.lesson_key = ${args.lesson ?? null})
      group by grouping sets ((r.lesson_key), (r.lesson_key, m.goal))`.execute(deps.db);
    const perLesson = new Map(rows.filter((r) => r.goal === null).map((r) => [r.lesson_key, r]));
    const perGoal = new Map(rows.filter((r) => r.goal !== null).map((r) => [`${r.lesson_key}\n${r.goal}`, r.done]));
    const lessons = release.order
      .filter((key) => !args.lesson || key === args.lesson)
      .map((key) => {
        const lesson = release.lessons.get(key)?.lesson;
        return {
          key,
          title: lesson?.title ?? key,
          runs: perLesson.get(key)?.runs ?? 0,
          passed: perLesson.get(key)?.passed ?? 0,
          goals: (lesson?.objectives ?? []).flatMap((o) =>
            o.items.map((i) => ({ key: i.key, title: i.title, done: perGoal.get(`${key}\n${i.key}`) ?? 0 })),
          ),
        };
      });
    return ok({ course: args.course, lessons });
  });
}
