import { type GoalMarked, type LessonCovered, LIMITS, mark_goal, ok } from '@studium/contracts';
import { endpoint, eventEnvelope, Failure } from '@studium/platform';
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
import { checkSession } from '../session-context.ts';
import { GOAL_MARKED, LESSON_COVERED } from '../subjects.ts';
import { eventBase } from '../write.ts';

const STATUSES: readonly string[] = ['open', 'done', 'planned', 'not_needed'];

/**
 * mark_goal: every refusal is decided before the one write (the mark, the run's status and
 * resume_from, the session's activity and the events, in one transaction under the run's lock).
 * Two round trips to PostgreSQL: one read (the session, the active release, the run's status and
 * marks) and one statement, the function mark_goal_write, that re-checks under the lock what the
 * decision was made on and writes (see migrations/0002_mark_goal_write.sql).
 */
export function markGoalHandler(deps: LessonsDeps) {
  return endpoint(mark_goal, async (args, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const context = await deps.runs.markContext(args.session);
    if (!context) throw new Failure(404, `no session ${args.session}`);
    const loaded = await checkSession(deps, principal, args.session, context.session, { fresh: false }, (course) =>
      deps.releases.activeFrom(course, context.activeRelease),
    );
    if (!loaded.ok) return loaded;
    const { session, active, placed } = loaded.data;
    if (!placed) return refusals.lessonNotInRelease(session.course, session.lesson_key, active.release);
    const lesson = placed.lesson;

    if (!STATUSES.includes(args.status)) return refusals.goalStatusUnknown(args.status);
    const status = args.status as GoalStatus;
    const found = findItem(lesson, args.goal);
    if (!found) {
      if (await wasInLesson(deps, session, args.goal, context.marks)) return refusals.goalRemoved(args.goal);
      return refusals.goalUnknown(args.goal, goalKeys(lesson));
    }
    if (status === 'not_needed' && found.item.required) return refusals.notNeededRequired(args.goal);
    const evidence = status === 'open' ? null : (args.evidence ?? '').trim();
    if (evidence !== null && !evidence) return refusals.evidenceRequired();
    if (evidence !== null && evidence.length > LIMITS.evidence) return refusals.evidenceTooLong(evidence.length);
    const resume = args.resume_from?.trim() || null;
    if (resume !== null && resume.length > LIMITS.resumeFrom) return refusals.resumeFromTooLong(resume.length);

    // The marks as they will be: the function writes only when the run still has the ones read.
    const marks = new Map(context.marks);
    const objective = found.objective.key;
    marks.set(args.goal, { goal: args.goal, objective, status, evidence, session_id: session.id, marked_at: '' });
    const current = context.runStatus;
    const next = advanceRun(current, lesson, marks);
    const objStatus = objectiveStatus(found.objective.items, marks);
    // `at` is the mark's time, set by the function.
    const base = eventBase(session, '');
    const marked: GoalMarked = { ...base, objective, goal: args.goal, status, objective_status: objStatus };
    const events: Array<{ subject: string; payload: unknown }> = [
      { subject: GOAL_MARKED, payload: eventEnvelope(GOAL_MARKED, marked) },
    ];
    if (next === 'covered' && current !== 'covered' && current !== 'passed') {
      const covered: LessonCovered = { ...base };
      events.push({ subject: LESSON_COVERED, payload: eventEnvelope(LESSON_COVERED, covered) });
    }
    const written = await deps.runs.writeMark({
      run: session.run_id,
      session: session.id,
      goal: args.goal,
      objective,
      status,
      evidence,
      resume,
      seenStatus: current,
      seenMarks: context.marks,
      next,
      events,
    });
    if (written.outcome === 'busy') return refusals.busy();
    if (written.outcome === 'run_archived') return refusals.runArchived(session.course, session.lesson_key);
    if (written.outcome === 'session_closed') return refusals.sessionClosed(session.id, written.status);
    // The events are committed without NOTIFY: this replica's relay publishes them now.
    deps.relay.kick();

    const step = nextStep(lesson, marks, next === 'passed');
    return ok({
      goal: args.goal,
      status,
      objective: {
        key: objective,
        status: objStatus,
        open: openGoals(lesson, marks)
          .filter((g) => g.objective === objective)
          .map((g) => ({ goal: g.goal, title: g.title })),
      },
      lesson: next,
      next_step: step,
      next: stepPhrase(step),
    });
  });
}

/** The item was in this lesson before a new release removed it (marked, or in the session's release). */
async function wasInLesson(
  deps: LessonsDeps,
  session: { course: string; lesson_key: string; release: string },
  goal: string,
  marks: ReadonlyMap<string, unknown>,
) {
  if (marks.has(goal)) return true;
  const original = await deps.releases.get(session.course, session.release);
  const lesson = original.ok ? original.data.lessons.get(session.lesson_key)?.lesson : undefined;
  return lesson ? findItem(lesson, goal) !== null : false;
}
