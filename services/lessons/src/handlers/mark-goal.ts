import {
  type CourseAccess,
  events as catalog,
  type GoalMarked,
  LIMITS,
  mark_goal,
  type OutputOf,
  ok,
  type Principal,
  type ReleaseLesson,
  type Reply,
} from '@studium/contracts';
import { endpoint, eventEnvelope, Failure } from '@studium/platform';
import type { z } from 'zod';
import { continuationAfter } from '../continuation.ts';
import { standingOf } from '../course-progress.ts';
import type { LessonsDeps } from '../deps.ts';
import {
  advanceRun,
  findItem,
  type GoalStatus,
  goalKeys,
  type Mark,
  nextStep,
  objectiveStatus,
  openGoals,
  type RunStatus,
} from '../domain/lesson-progress.ts';
import { quizStanding } from '../domain/quiz.ts';
import { stepPhrase } from '../domain/teaching-rules.ts';
import { refusals } from '../refusals.ts';
import type { LoadedRelease } from '../releases.ts';
import type { MarkContext, MarkWrite } from '../repositories/run.repository.ts';
import { checkSession } from '../session-context.ts';
import { eventBase } from '../write.ts';

const GOAL_MARKED = catalog['lessons.goal_marked'].subject;

const STATUSES: readonly string[] = ['open', 'done', 'planned', 'not_needed'];

type Args = z.infer<typeof mark_goal.input>;

/** What mark_goal decided on a context: a refusal, or the write and the reply it gives. */
type Decision =
  | { refused: Reply<never> }
  | {
      write: MarkWrite;
      marks: Map<string, Mark>;
      next: RunStatus;
      lesson: ReleaseLesson;
      access: CourseAccess;
      active: LoadedRelease;
      reply: () => OutputOf<typeof mark_goal>;
    };

/**
 * mark_goal: every refusal is decided before the one write (the mark, the run's status and
 * resume_from, the session's activity and the events, in one transaction under the run's lock).
 * The write is one statement, the function mark_goal_write (migrations/0002), decided on the
 * session's context: read in one statement (the session, the active release, the run's status and
 * marks), or the one this replica kept from its last write on the session (no read at all). The
 * function compares the context with the current state; a kept context that moved is decided
 * again on the state the function returns, a read one that moved is busy (another request
 * changed the session meanwhile). A refusal is never decided on a kept context.
 */
export function markGoalHandler(deps: LessonsDeps) {
  return endpoint(mark_goal, async (args, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    let context = deps.markContexts.get(args.session);
    let kept = context !== undefined;
    context ??= await deps.runs.markContext(args.session);
    // An unknown id is refused like another student's (docs/decisions.md).
    if (!context) return refusals.notYourSession(args.session);
    for (;;) {
      const decided = await decide(deps, principal, args, context);
      if ('refused' in decided) {
        if (!kept) return decided.refused;
        deps.markContexts.delete(args.session);
        const read = await deps.runs.markContext(args.session);
        if (!read) return refusals.notYourSession(args.session);
        context = read;
        kept = false;
        continue;
      }
      const written = await deps.runs.writeMark(decided.write);
      if (written.outcome === 'stale') {
        deps.markContexts.delete(args.session);
        if (!kept) return refusals.busy();
        context = { ...context, ...written.current };
        kept = false;
        continue;
      }
      const { session } = context;
      if (written.outcome !== 'ok') {
        deps.markContexts.delete(args.session);
        if (written.outcome === 'busy') return refusals.busy();
        if (written.outcome === 'run_archived') return refusals.runArchived(session.course, session.lesson_key);
        return refusals.sessionClosed(session.id, written.status);
      }
      const marks = new Map(decided.marks);
      const mark = marks.get(args.goal);
      if (mark) marks.set(args.goal, { ...mark, marked_at: written.at });
      // The access document is not kept: the next call's check reads the current one.
      deps.markContexts.set(args.session, { ...context, runStatus: decided.next, marks, accessDoc: undefined });
      // The events are committed without NOTIFY: this replica's relay publishes them shortly.
      deps.relay.kick();
      return ok(await withQuizStanding(deps, principal, session, decided, decided.reply()));
    }
  });
}

/**
 * The reply's next step once every required item is closed: the quiz, unless it has no attempt
 * left (next_step null, and next names what follows the failed lesson) or a pause is running
 * (next says until when). Read only then: the attempts do not change the item marks before it.
 */
async function withQuizStanding(
  deps: LessonsDeps,
  principal: Principal,
  session: { run_id: string; user_id: string; course: string },
  decided: { lesson: ReleaseLesson; access: CourseAccess; active: LoadedRelease },
  reply: OutputOf<typeof mark_goal>,
): Promise<OutputOf<typeof mark_goal>> {
  if (reply.next_step?.kind !== 'quiz') return reply;
  const standing = quizStanding(decided.lesson.quiz, await deps.attempts.ofRun(session.run_id), new Date());
  if (!standing || (!standing.exhausted && !standing.retryAfter)) return reply;
  const step = standing.exhausted ? null : reply.next_step;
  const after = standing.exhausted
    ? await continuationAfter(
        deps,
        principal,
        session.course,
        standingOf(await deps.courseStates.of(session.user_id, session.course), decided.active),
        decided.access.programs,
      )
    : null;
  return { ...reply, next_step: step, next: stepPhrase(step, standing, after) };
}

/** mark_goal's checks in the spec's order on a context, and what the write is when none refuses. */

async function decide(deps: LessonsDeps, principal: Principal, args: Args, context: MarkContext): Promise<Decision> {
  const loaded = await checkSession(
    deps,
    principal,
    args.session,
    context.session,
    { fresh: false },
    (course) => deps.releases.activeFrom(course, context.activeRelease),
    context.accessDoc === undefined ? undefined : { doc: context.accessDoc },
  );
  if (!loaded.ok) return { refused: loaded };
  const { session, access, active, placed } = loaded.data;
  if (!placed) return { refused: refusals.lessonNotInRelease(session.course, session.lesson_key, active.release) };
  const lesson = placed.lesson;

  if (!STATUSES.includes(args.status)) return { refused: refusals.goalStatusUnknown(args.status) };
  const status = args.status as GoalStatus;
  const found = findItem(lesson, args.goal);
  if (!found) {
    if (await wasInLesson(deps, session, args.goal, context.marks)) return { refused: refusals.goalRemoved(args.goal) };
    return { refused: refusals.goalUnknown(args.goal, goalKeys(lesson)) };
  }
  if (status === 'not_needed' && found.item.required) return { refused: refusals.notNeededRequired(args.goal) };
  const evidence = status === 'open' ? null : (args.evidence ?? '').trim();
  if (evidence !== null && !evidence) return { refused: refusals.evidenceRequired() };
  if (evidence !== null && evidence.length > LIMITS.evidence) {
    return { refused: refusals.evidenceTooLong(evidence.length) };
  }
  const resume = args.resume_from?.trim() || null;
  if (resume !== null && resume.length > LIMITS.resumeFrom) {
    return { refused: refusals.resumeFromTooLong(resume.length) };
  }

  // The marks as they will be: the function writes only when the run still has the ones decided on.
  const marks = new Map(context.marks);
  const objective = found.objective.key;
  marks.set(args.goal, { goal: args.goal, objective, status, evidence, session_id: session.id, marked_at: '' });
  const current = context.runStatus;
  const next = advanceRun(current, lesson, marks);
  const objStatus = objectiveStatus(found.objective.items, marks);
  // One event per call: a mark that covers the lesson says so itself (lesson_covered was a second
  // event before issue 32.4). `at` is the mark's time, set by the function.
  const marked: GoalMarked = {
    ...eventBase(session, ''),
    objective,
    goal: args.goal,
    status,
    objective_status: objStatus,
    lesson_covered: next === 'covered' && current !== 'covered' && current !== 'passed',
  };
  const events: MarkWrite['events'] = [{ subject: GOAL_MARKED, payload: eventEnvelope(GOAL_MARKED, marked) }];
  return {
    lesson,
    access,
    active,
    write: {
      run: session.run_id,
      session: session.id,
      course: session.course,
      goal: args.goal,
      objective,
      status,
      evidence,
      resume,
      seen: context,
      next,
      events,
    },
    marks,
    next,
    reply: () => {
      const step = nextStep(lesson, marks, next === 'passed');
      return {
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
      };
    },
  };
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
