import { type GoalMarked, type LessonCovered, LIMITS, mark_goal, ok } from '@studium/contracts';
import { emitEvent, endpoint } from '@studium/platform';
import type { LessonsDeps } from '../deps.ts';
import {
  advanceRun,
  findItem,
  type GoalStatus,
  goalKeys,
  nextStep,
  objectiveStatus,
  openGoals,
} from '../domain/lesson-progress.ts';
import { stepPhrase } from '../domain/teaching-rules.ts';
import { refusals } from '../refusals.ts';
import { loadSession } from '../session-context.ts';
import { eventBase, writeRun } from '../write.ts';

const STATUSES: readonly string[] = ['open', 'done', 'planned', 'not_needed'];

/**
 * mark_goal: every refusal is decided before the one write (the mark, the run's status and
 * resume_from, the session's activity and the events, in one transaction under the run's lock).
 */
export function markGoalHandler(deps: LessonsDeps) {
  return endpoint(mark_goal, async (args, { principal }) => {
    const loaded = await loadSession(deps, principal, args.session, { fresh: false });
    if (!loaded.ok) return loaded;
    const { session, active, placed } = loaded.data;
    if (!placed) return refusals.lessonNotInRelease(session.course, session.lesson_key, active.release);
    const lesson = placed.lesson;

    if (!STATUSES.includes(args.status)) return refusals.goalStatusUnknown(args.status);
    const status = args.status as GoalStatus;
    const found = findItem(lesson, args.goal);
    if (!found) {
      if (await wasInLesson(deps, session, args.goal)) return refusals.goalRemoved(args.goal);
      return refusals.goalUnknown(args.goal, goalKeys(lesson));
    }
    if (status === 'not_needed' && found.item.required) return refusals.notNeededRequired(args.goal);
    const evidence = status === 'open' ? null : (args.evidence ?? '').trim();
    if (evidence !== null && !evidence) return refusals.evidenceRequired();
    if (evidence !== null && evidence.length > LIMITS.evidence) return refusals.evidenceTooLong(evidence.length);
    const resume = args.resume_from?.trim() || null;
    if (resume !== null && resume.length > LIMITS.resumeFrom) return refusals.resumeFromTooLong(resume.length);

    return writeRun(deps, session.run_id, session, async (trx, run) => {
      const mark = await deps.runs.mark(trx, {
        run: run.id,
        goal: args.goal,
        objective: found.objective.key,
        status,
        evidence,
        session: session.id,
      });
      const marks = await deps.runs.marks(run.id, trx);
      const next = advanceRun(run.status, lesson, marks);
      const at = mark.marked_at;
      await deps.runs.update(trx, run.id, {
        ...(next !== run.status ? { status: next } : {}),
        ...(run.started_at === null && status !== 'open' ? { started_at: at } : {}),
        ...(next === 'covered' && run.covered_at === null ? { covered_at: at } : {}),
        ...(resume !== null ? { resume_from: resume } : {}),
      });
      await deps.sessions.touch(trx, session.id);
      const objStatus = objectiveStatus(found.objective.items, marks);
      const base = eventBase(session, at);
      const marked: GoalMarked = {
        ...base,
        objective: found.objective.key,
        goal: args.goal,
        status,
        objective_status: objStatus,
      };
      await emitEvent(trx, 'lessons.goal_marked', marked);
      if (next === 'covered' && run.status !== 'covered' && run.status !== 'passed') {
        const covered: LessonCovered = { ...base };
        await emitEvent(trx, 'lessons.lesson_covered', covered);
      }
      const step = nextStep(lesson, marks, next === 'passed');
      return ok({
        goal: args.goal,
        status,
        objective: {
          key: found.objective.key,
          status: objStatus,
          open: openGoals(lesson, marks)
            .filter((g) => g.objective === found.objective.key)
            .map((g) => ({ goal: g.goal, title: g.title })),
        },
        lesson: next,
        next_step: step,
        next: stepPhrase(step),
      });
    });
  });
}

/** The item was in this lesson before a new release removed it (marked, or in the session's release). */
async function wasInLesson(
  deps: LessonsDeps,
  session: { run_id: string; course: string; lesson_key: string; release: string },
  goal: string,
) {
  const marks = await deps.runs.marks(session.run_id);
  if (marks.has(goal)) return true;
  const original = await deps.releases.get(session.course, session.release);
  const lesson = original.ok ? original.data.lessons.get(session.lesson_key)?.lesson : undefined;
  return lesson ? findItem(lesson, goal) !== null : false;
}
