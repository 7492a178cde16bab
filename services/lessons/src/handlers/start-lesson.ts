import {
  events,
  lessonId,
  lessonsTeachingRules,
  type OutputOf,
  ok,
  type Principal,
  type Reply,
  type SessionStarted,
  start_lesson,
  startLessonChannel,
} from '@studium/contracts';
import { endpoint, eventEnvelope, Failure } from '@studium/platform';
import { continuationAfter } from '../continuation.ts';
import { courseStanding, programLock, unpassableLessons } from '../course-progress.ts';
import type { LessonsDeps } from '../deps.ts';
import { lessonMap, nextStep } from '../domain/lesson-progress.ts';
import { chooseOpening, RETURN_AFTER_MS } from '../domain/opening.ts';
import { attemptsLeft, quizStanding } from '../domain/quiz.ts';
import { signals } from '../domain/signals.ts';
import { CLOSING_RULES, QUIZ_RULES, START_RULES } from '../domain/teaching-rules.ts';
import { fetchLessonContext } from '../lesson-context.ts';
import { refusals } from '../refusals.ts';
import { passedIn, runState } from '../repositories/course-state.ts';
import { checkAccess } from '../session-context.ts';
import { writeRun } from '../write.ts';
import { chooseTarget } from './lesson-choice.ts';
import { nothingLeft } from './nothing-left.ts';
import { pastLessons, startView } from './start-view.ts';

type Args = { lesson?: string; course?: string; frame?: boolean; space?: string };
type Out = OutputOf<typeof start_lesson>;

/** start_lesson (the agent channel) and its channel-named twin for the web chat. */
export function startLessonHandlers(deps: LessonsDeps) {
  return [
    endpoint(start_lesson, (args, { principal }) => startLesson(deps, principal, args, 'agent')),
    endpoint(startLessonChannel, (args, { principal }) => startLesson(deps, principal, args, args.channel)),
    // The packs the web channel's replies leave out, for the web chat's system instructions.
    endpoint(lessonsTeachingRules, async () => ok({ start: START_RULES, quiz: QUIZ_RULES, closing: CLOSING_RULES })),
  ];
}

/**
 * Starts or continues a session: picks the lesson, checks access, program order and the
 * release, asks the optional contexts in parallel, then (under the run's lock) continues the
 * open session of this space and channel or opens a new one, and says each signal once.
 */
async function startLesson(
  deps: LessonsDeps,
  principal: Principal | null,
  args: Args,
  channel: string,
  /** Without arguments, a course held back by its program gives way to the course to pass first (once). */
  giveWay = true,
): Promise<Reply<Out>> {
  if (!principal) throw new Failure(401, 'no principal');
  if (channel !== 'agent' && channel !== 'web') return refusals.unknownChannel(channel);
  const user = principal.user;
  const target = await chooseTarget(deps, principal, args);
  if (!target.ok) return target;
  const { course } = target.data;

  const { state } = target.data;
  const [access, active] = await Promise.all([
    checkAccess(deps, principal, course, args.space ?? null, state.courseSpace),
    deps.releases.activeFrom(course, state.activeRelease),
  ]);
  if (!access.ok) return access;
  // The lock as lessons sees it: a previous course finished here a moment ago no longer holds this one.
  const lock = await programLock(deps, user, access.data);
  if (lock) {
    // Chosen without arguments (the most urgent course): study the course the program puts first.
    if (target.data.mode === 'auto' && giveWay) {
      const first = await startLesson(deps, principal, { ...args, course: lock.course }, channel, false);
      if (first.ok) return first;
    }
    return refusals.programOrder(lock);
  }
  if (!active.ok) return active.error.code === 'course_not_found' ? refusals.courseNotReleased(course) : active;
  const release = active.data;

  const passed = passedIn(state);
  // Lessons that cannot be passed any more (required quiz exhausted) are skipped like passed ones.
  const failed = unpassableLessons(state, release);
  const standing = courseStanding(release.order, passed, failed);
  const key = target.data.lessonKey ?? standing.next;
  if (key === null) {
    return nothingLeft(deps, principal, { course, spaces: [access.data.space], programs: access.data.programs });
  }
  const placed = release.lessons.get(key);
  if (!placed) return refusals.lessonNotFound(lessonId(course, key));
  // A failed lesson opened by its id: its hints name what follows it.
  const after = failed.has(key)
    ? await continuationAfter(deps, principal, course, standing, access.data.programs)
    : null;

  let web: { demoLeft: number } | null = null;
  if (channel === 'web') {
    const used = await deps.sessions.webLessons(user);
    const limit = deps.config.WEB_DEMO_LESSONS;
    const counted = used.includes(lessonId(course, key)) ? used.length : used.length + 1;
    if (counted > limit) return refusals.webDemoExhausted(used.length, limit);
    web = { demoLeft: limit - counted };
  }

  const ctxPromise = fetchLessonContext(
    deps.bus,
    deps.log,
    deps.config.CONTEXT_TIMEOUT_MS,
    {
      user,
      course,
      release: release.release,
      lesson: key,
      previousLesson: placed.index > 0 ? (release.order[placed.index - 1] ?? null) : null,
      space: access.data.space,
      keys: release.content.course.learn_about_student.map((l) => l.key),
    },
    principal,
  );
  const lesson = placed.lesson;
  // The run read with the state; created on the lesson's first start (a reset since then shows
  // as run_archived under the lock below).
  let runRow = state.runs.find((r) => r.lesson_key === key);
  if (!runRow) {
    runRow =
      (await deps.runs.ensure(deps.db, {
        user,
        name: principal.full_name,
        course,
        lessonKey: key,
        title: lesson.title,
      })) ?? (await deps.runs.findLive(user, course, key));
    if (!runRow) throw new Error('run missing right after ensure');
  }
  const runId = runRow.id;
  const history = pastLessons(release, placed, state.runs, state.marks);
  const ctx = await ctxPromise;
  const now = new Date();

  return writeRun(deps, runId, null, async (trx, run) => {
    // One read under the lock: the run's sessions, marks and attempts, and the course's sessions.
    const { sessions, marks, courseSessions, attempts } = await runState(trx, run.id, user, course);
    const anyMarked = [...marks.values()].some((m) => m.status !== 'open');
    const current = sessions.find((s) => s.status === 'open' && s.space === access.data.space && s.channel === channel);
    const stale = current ? now.getTime() - new Date(current.last_activity_at).getTime() > RETURN_AFTER_MS : false;
    const lastActivity =
      sessions
        .map((s) => s.last_activity_at)
        .sort()
        .at(-1) ?? null;
    const kept = current && !stale ? current : null;
    const opening = chooseOpening({
      // Sessions in the course on live runs besides the one continued (counted up to two).
      courseSessionsBefore: courseSessions - (kept ? 1 : 0) > 0,
      lessonSessionsBefore: sessions.length > 0,
      runStatus: run.status,
      anyMarked,
      lastActivity,
      now,
    });

    const map = lessonMap(lesson, marks);
    const blocks = ctx.artifactBlocks;
    const said = signals({
      emptySessionsBefore: anyMarked ? 0 : sessions.filter((s) => s.id !== kept?.id).length,
      objectivesTotal: map.length,
      objectivesCovered: map.filter((o) => o.status === 'covered').length,
      documentUntouched: blocks?.length ? blocks.every((b) => !b.filled) : null,
      overdue: access.data.overdue,
      deadline: access.data.deadline,
      lessonsLeft: release.order.filter((k) => !passed.has(k) && !failed.has(k)).length,
      now,
      said: kept?.signals ?? [],
    });
    const saidKinds = [...(kept?.signals ?? []), ...said.map((s) => s.kind)];

    let session = kept;
    if (session) {
      await deps.sessions.touch(trx, session.id, saidKinds);
    } else {
      if (current) await deps.sessions.setStatus(trx, current.id, 'abandoned');
      // A new session is created with the signals said in this reply and its event, one statement.
      const subject = events['lessons.session_started'].subject;
      session = await deps.sessions.createWithEvent(
        trx,
        {
          run: run.id,
          user,
          course,
          lessonKey: key,
          space: access.data.space,
          organization: access.data.organization,
          channel,
          release: release.release,
          signals: saidKinds,
        },
        subject,
        (id) => {
          const event: SessionStarted = {
            user,
            course,
            lesson: lessonId(course, key),
            lesson_key: key,
            session: id,
            space: access.data.space,
            organization: access.data.organization,
            // Set by the statement to the session's start.
            at: '',
            release: release.release,
            version: release.version,
            channel,
            opening,
            abandoned: current ? current.id : null,
            objectives: lesson.objectives.map((o) => ({ key: o.key, text: o.text })),
          };
          return eventEnvelope(subject, event);
        },
      );
    }

    if (run.lesson_title !== lesson.title || run.user_name !== principal.full_name) {
      await deps.runs.update(trx, run.id, { lesson_title: lesson.title, user_name: principal.full_name });
    }
    const finished = attempts.filter((a) => a.status === 'finished').length;
    const quizState = run.status === 'passed' ? null : quizStanding(lesson.quiz, attempts, now);

    return ok(
      startView({
        sessionId: session.id,
        channel,
        access: access.data,
        active: release,
        placed,
        run,
        marks,
        opening,
        step: nextStep(lesson, marks, run.status === 'passed', quizState?.exhausted),
        quiz: quizState,
        after,
        frame: args.frame !== false,
        ctx,
        history,
        signals: said.map((s) => s.text),
        attemptsLeft: lesson.quiz ? attemptsLeft(lesson.quiz, finished) : null,
        web,
      }),
    );
  });
}
