import { goal_runs, LIMITS, NUMBER_LIMIT, type OutputOf, ok } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import type { LessonsDeps } from '../deps.ts';
import type { Mark } from '../domain/lesson-progress.ts';
import { refusals } from '../refusals.ts';
import type { LoadedRelease } from '../releases.ts';
import type { Run } from '../repositories/run.repository.ts';

type Out = OutputOf<typeof goal_runs>;

/** Platform roles that see every course's runs. */
export const STAFF = ['Moderator', 'System Manager', 'Administrator'];

/** An integer page argument: a number or a numeric string; null when it is not an integer. */
function intOf(v: number | string | undefined, fallback: number): number | null {
  if (v === undefined) return fallback;
  const n = typeof v === 'number' ? v : /^\s*-?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  return Number.isInteger(n) ? n : null;
}

/**
 * goal_runs: the course's live runs, recently accepted first, with objectives, items, evidence
 * and what the publication removed. Seen by the course's curators (the release's list) and staff;
 * anyone else gets 403.
 */
export function goalRunsHandler(deps: LessonsDeps) {
  return endpoint(goal_runs, async (args, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const start = intOf(args.start, 0);
    // Past NUMBER_LIMIT no page exists (and PostgreSQL's bigint would overflow at 2^63).
    if (start === null || start < 0 || start > NUMBER_LIMIT) return refusals.invalidPage('start', args.start);
    const asked = intOf(args.limit, LIMITS.goalRunsPage);
    if (asked === null || asked < 1) return refusals.invalidPage('limit', args.limit);
    const limit = Math.min(asked, LIMITS.goalRunsPage);
    const active = await deps.releases.active(args.course);
    if (!active.ok) return active;
    const release = active.data;
    const staff = principal.roles.some((r) => STAFF.includes(r));
    if (!staff && !release.content.course.curators.includes(principal.user)) {
      throw new Failure(403, 'goal_runs: not a curator of this course');
    }
    const rows = await deps.runs.page(args.course, args.lesson ?? null, start, limit + 1);
    const page = rows.slice(0, limit);
    const ids = page.map((r) => r.id);
    const [marks, attempts] = await Promise.all([deps.runs.marksOf(ids), deps.attempts.ofRuns(ids)]);
    const passedAttempts = attempts.filter((a) => a.status === 'finished' && a.passed);
    const answers = await deps.attempts.answersOf(passedAttempts.map((a) => a.id));
    const confirmed = new Map<string, Set<string>>();
    for (const a of passedAttempts) {
      const right = new Set(answers.filter((x) => x.attempt_id === a.id && x.correct).map((x) => x.question));
      const set = confirmed.get(a.run_id) ?? new Set<string>();
      const objectives = new Set(a.questions.map((q) => q.objective).filter((o): o is string => o !== null));
      for (const o of objectives) {
        if (a.questions.filter((q) => q.objective === o).every((q) => right.has(q.key))) set.add(o);
      }
      confirmed.set(a.run_id, set);
    }
    return ok({
      course: args.course,
      lesson: args.lesson ?? null,
      start,
      limit,
      has_more: rows.length > limit,
      runs: page.map((run) =>
        runView(run, release, marks.get(run.id) ?? new Map(), confirmed.get(run.id) ?? new Set()),
      ),
    });
  });
}

function runView(
  run: Run,
  release: LoadedRelease,
  marks: Map<string, Mark>,
  confirmed: Set<string>,
): Out['runs'][number] {
  const lesson = release.lessons.get(run.lesson_key)?.lesson;
  const goalView = (key: string, removed: boolean, item?: { title: string; kind: string }) => {
    const m = marks.get(key);
    return {
      key,
      // The item's title and kind in the active release, for people (the cabinet); none once removed.
      ...(item ? { title: item.title, kind: item.kind } : {}),
      status: m?.status ?? 'open',
      evidence: m?.evidence ?? null,
      marked_at: m?.marked_at ?? null,
      session: m?.session_id ?? null,
      ...(removed ? { removed: true } : {}),
    };
  };
  const known = new Set(lesson?.objectives.flatMap((o) => o.items.map((i) => i.key)) ?? []);
  const objectives: Out['runs'][number]['objectives'] = (lesson?.objectives ?? []).map((o) => {
    const required = o.items.filter((i) => i.required);
    const closed = (k: string) => ['done', 'planned'].includes(marks.get(k)?.status ?? 'open');
    const touched = o.items.some((i) => (marks.get(i.key)?.status ?? 'open') !== 'open');
    const covered = required.length ? required.every((i) => closed(i.key)) : touched;
    return {
      key: o.key,
      text: o.text,
      status: covered ? 'covered' : touched ? 'touched' : 'not_started',
      quiz_confirmed: confirmed.has(o.key),
      goals: [
        ...o.items.map((i) => goalView(i.key, false, i)),
        ...[...marks.values()]
          .filter((m) => m.objective === o.key && !known.has(m.goal))
          .map((m) => goalView(m.goal, true)),
      ],
    };
  });
  // Objectives the new release removed, with the marks they had.
  const present = new Set(objectives.map((o) => o.key));
  for (const objective of new Set([...marks.values()].map((m) => m.objective))) {
    if (present.has(objective)) continue;
    const goals = [...marks.values()].filter((m) => m.objective === objective).map((m) => goalView(m.goal, true));
    objectives.push({
      key: objective,
      status: 'touched',
      quiz_confirmed: confirmed.has(objective),
      removed: true,
      goals,
    });
  }
  return {
    student: { id: run.user_id, name: run.user_name },
    lesson: { key: run.lesson_key, title: lesson?.title ?? run.lesson_title },
    status: run.status,
    accepted_at: run.accepted_at,
    started_at: run.started_at,
    passed_at: run.passed_at,
    resume_from: run.resume_from,
    objectives,
  };
}
