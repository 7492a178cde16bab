import { type OutputOf, ok, request_quiz } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { continuationAfter } from '../continuation.ts';
import { standingOf } from '../course-progress.ts';
import type { LessonsDeps } from '../deps.ts';
import { openGoals } from '../domain/lesson-progress.ts';
import { attemptGate, publicQuestion } from '../domain/quiz.ts';
import { QUESTION_NEXT, QUESTION_NEXT_AFTER_UPDATE, QUIZ_RULES } from '../domain/teaching-rules.ts';
import { cancelAttempt } from '../lesson-pass.ts';
import { refusals } from '../refusals.ts';
import { loadSession } from '../session-context.ts';
import { Keep, writeRun } from '../write.ts';

type Out = OutputOf<typeof request_quiz>;

/**
 * request_quiz: returns the open attempt (on the active release) or starts one. An open attempt
 * the publication did not move (started on the old version during it) is cancelled here
 * (attempt_outdated) and a new one starts; a cancellation the agent was not told of comes once as
 * previous_attempt_cancelled.
 */
export function requestQuizHandler(deps: LessonsDeps) {
  return endpoint(request_quiz, async (args, { principal }) => {
    const loaded = await loadSession(deps, principal, args.session, { fresh: false });
    if (!loaded.ok) return loaded;
    const { session, active, placed } = loaded.data;
    if (!placed) {
      // The lesson is gone: its open attempt is cancelled first, then the call is refused.
      return writeRun(deps, session.run_id, session, async (trx, run) => {
        const open = (await deps.attempts.ofRun(run.id, trx)).find((a) => a.status === 'open');
        if (open) await cancelAttempt(trx, deps, open, 'lesson_removed', true);
        return new Keep(refusals.lessonNotInRelease(session.course, session.lesson_key, active.release));
      });
    }
    const lesson = placed.lesson;
    const quiz = lesson.quiz;
    if (!quiz?.questions.length) return refusals.quizNotConfigured();

    const reply = await writeRun<Out>(deps, session.run_id, session, async (trx, run, _fresh, seen) => {
      if (!seen) throw new Error('a session write without its session');
      const open = openGoals(lesson, seen.marks);
      if (open.length) return refusals.goalsOpen(open);
      const attempts = await deps.attempts.ofRun(run.id, trx);
      const current = attempts.find((a) => a.status === 'open');
      const rules = session.channel === 'agent' ? { teaching_rules: QUIZ_RULES } : {};
      if (current && current.release === active.release) {
        const answered = new Set((await deps.attempts.answers(current.id, trx)).map((a) => a.question));
        const index = current.questions.findIndex((q) => !answered.has(q.key));
        await deps.sessions.touch(trx, session.id);
        return ok({
          attempt: current.id,
          question: publicQuestion(current.questions, Math.max(index, 0)) as NonNullable<
            ReturnType<typeof publicQuestion>
          >,
          next: QUESTION_NEXT,
          ...rules,
        });
      }
      const gate = attemptGate(quiz, attempts, new Date());
      const outdated = current ?? null;
      if (!gate.ok) {
        const refusal =
          gate.code === 'retry_too_soon'
            ? refusals.retryTooSoon(gate.retryAfter)
            : refusals.attemptsExhausted(gate.attemptsUsed);
        if (!outdated) return refusal;
        await cancelAttempt(trx, deps, outdated, 'attempt_outdated', false);
        return new Keep(refusal);
      }
      let previous: { attempt: string; reason: 'quiz_changed' | 'attempt_outdated' | 'lesson_removed' } | null = null;
      if (outdated) {
        await cancelAttempt(trx, deps, outdated, 'attempt_outdated', true);
        previous = { attempt: outdated.id, reason: 'attempt_outdated' };
      }
      for (const a of attempts) {
        if (a.status !== 'cancelled' || a.cancel_reported) continue;
        await deps.attempts.markReported(trx, a.id);
        // The latest one the agent was not told of (attempts come oldest first).
        if (!outdated && a.cancel_reason) previous = { attempt: a.id, reason: a.cancel_reason };
      }
      const created = await deps.attempts.create(trx, {
        run: run.id,
        session: session.id,
        user: session.user_id,
        course: session.course,
        lessonKey: session.lesson_key,
        number: gate.number,
        release: active.release,
        questions: quiz.questions,
        threshold: quiz.pass_threshold,
      });
      return ok({
        attempt: created.id,
        question: publicQuestion(created.questions, 0) as NonNullable<ReturnType<typeof publicQuestion>>,
        next: previous ? QUESTION_NEXT_AFTER_UPDATE : QUESTION_NEXT,
        ...rules,
        ...(previous ? { previous_attempt_cancelled: previous } : {}),
      });
    });
    if (reply.ok || reply.error.code !== 'quiz_attempts_exhausted' || !principal) return reply;
    // The lesson failed for good: the refusal names what follows it (read after the lock is released).
    const state = await deps.courseStates.of(session.user_id, session.course);
    const after = await continuationAfter(
      deps,
      principal,
      session.course,
      standingOf(state, active),
      loaded.data.access.programs,
    );
    return refusals.attemptsExhausted(Number(reply.error.attempts_used), after);
  });
}
