import { type OutputOf, ok, type QuizAttemptFinished, type QuizVerdict, submit_answer } from '@studium/contracts';
import { emitEvent, endpoint, Failure } from '@studium/platform';
import { continuationAfter } from '../continuation.ts';
import type { CourseStanding } from '../course-progress.ts';
import type { LessonsDeps } from '../deps.ts';
import { openGoals, quizRequired } from '../domain/lesson-progress.ts';
import {
  attemptsLeft,
  explanationsForWrong,
  matchOption,
  objectiveResults,
  passes,
  publicQuestion,
  retryAfter,
  score,
} from '../domain/quiz.ts';
import { CLOSING_RULES, QUESTION_NEXT, quizExhaustedNext } from '../domain/teaching-rules.ts';
import { fetchEmptyBlocks } from '../lesson-context.ts';
import { cancelAttempt, failRun, nextLessonRef, passRun } from '../lesson-pass.ts';
import { refusals } from '../refusals.ts';
import { answerContext, answerState, writeAnswer } from '../repositories/answer-state.ts';
import { sessionAccess } from '../session-context.ts';
import { eventBase, Keep, writeRun } from '../write.ts';

/** Student words are kept for the course authors, cut to this length. */
const WORDS_LIMIT = 2000;

type Out = OutputOf<typeof submit_answer>;

/**
 * submit_answer: the server's verdict. Access is checked on every answer; the attempt is scored
 * once (finish() only takes an open attempt, under the run's lock). An attempt on an older
 * release than the active one was not moved by the publication: its answer cancels it
 * (attempt_outdated, or lesson_removed when the lesson is gone).
 */
export function submitAnswerHandler(deps: LessonsDeps) {
  return endpoint(submit_answer, async (args, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const words = (args.student_words ?? '').trim();
    if (!words) return refusals.studentWordsRequired();
    // The attempt, its session and the active release row in one statement.
    const found = await answerContext(deps.db, args.attempt);
    const attempt = found?.attempt;
    // An unknown attempt is refused like another student's (docs/decisions.md).
    if (!found || !attempt || attempt.user_id !== principal.user) return refusals.notYourAttempt(args.attempt);
    const session = found.session;
    if (!session) throw new Error(`attempt ${attempt.id} without its session`);
    const [access, active] = await Promise.all([
      sessionAccess(deps, principal, session, true, { doc: found.accessDoc }),
      deps.releases.activeFrom(attempt.course, found.activeRelease),
    ]);
    if (!access.ok) return access;
    if (!active.ok) return refusals.courseNotReleased(attempt.course);
    const release = active.data;

    let closing: CourseStanding | null = null;
    // The course's standing when this answer failed the lesson for good (no attempt left).
    let failing: CourseStanding | null = null;
    const reply = await writeRun<Out>(deps, attempt.run_id, null, async (trx, run) => {
      // One read under the lock: the attempt, the active release row, the answers, marks and passed lessons.
      const seen = await answerState(trx, attempt.id);
      if (!seen) throw new Error('attempt vanished');
      const a = seen.attempt;
      if (a.status === 'cancelled') {
        await deps.attempts.markReported(trx, a.id);
        return new Keep(refusals.attemptCancelled(a.id, a.session_id, a.cancel_reason ?? 'attempt_outdated'));
      }
      if (a.status === 'finished') return refusals.attemptFinished(a.id);
      // The active release as of this transaction: a publication may have moved the attempt meanwhile.
      let current = release;
      if (seen.activeRelease !== null && seen.activeRelease !== release.release) {
        const fresh = await deps.releases.get(a.course, seen.activeRelease);
        if (fresh.ok) current = fresh.data;
      }
      const placed = current.lessons.get(a.lesson_key);
      if (a.release !== current.release || !placed) {
        const reason = placed ? 'attempt_outdated' : 'lesson_removed';
        await cancelAttempt(trx, deps, a, reason, true);
        return new Keep(refusals.attemptCancelled(a.id, a.session_id, reason));
      }
      const answers = seen.answers;
      const question = a.questions.find((q) => q.key === args.question);
      if (!question || answers.some((x) => x.question === args.question))
        return refusals.questionMismatch(args.question);
      const option = matchOption(question, args.answer);
      if (!option)
        return refusals.answerUnknown(
          args.answer,
          question.options.map((o) => o.id),
        );
      // The last answer finishes the attempt: the quiz is given only while every required item is
      // closed, so an item reopened since request_quiz refuses it (goals_open, nothing written);
      // once it is closed again, the same answer finishes the attempt (docs/decisions.md).
      if (answers.length + 1 >= a.questions.length) {
        const open = openGoals(placed.lesson, seen.marks);
        if (open.length) return refusals.goalsOpen(open);
      }
      const correct = option === question.correct;
      await writeAnswer(trx, {
        attempt: a.id,
        session: a.session_id,
        question: question.key,
        answer: option,
        words: words.slice(0, WORDS_LIMIT),
        correct,
      });
      const given = [
        ...answers.map((x) => ({ question: x.question, correct: x.correct })),
        { question: question.key, correct },
      ];
      const verdict = { correct, ...(correct ? { explanation: question.explanation } : {}) };
      const nextIndex = a.questions.findIndex((q) => !given.some((g) => g.question === q.key));
      if (nextIndex >= 0) {
        return ok({
          verdict,
          next_question: publicQuestion(a.questions, nextIndex),
          finished: false,
          next: QUESTION_NEXT,
        });
      }

      const value = score(a.questions, given);
      const passed = passes(value, a.threshold);
      const finishedAt = await deps.attempts.finish(trx, a.id, value, passed);
      if (!finishedAt) return refusals.attemptFinished(a.id);
      // One event per answer: the verdict travels in lesson_passed or lesson_failed when it passed
      // or failed the lesson, and as quiz_attempt_finished only otherwise (issue 32.4).
      const outcome: QuizVerdict = { attempt: a.id, number: a.number, score: value, passed };
      const base = {
        score: value,
        pass_threshold: a.threshold,
        passed,
        objective_results: objectiveResults(a.questions, given),
      };
      if (passed) {
        const standing = await passRun(trx, deps, {
          run,
          session,
          access: access.data,
          active: current,
          via: 'quiz',
          at: finishedAt,
          passed: seen.passed,
          close: session.id,
          verdict: outcome,
        });
        closing = standing;
        return ok({
          verdict,
          next_question: null,
          finished: true,
          result: {
            ...base,
            session_status: 'closed',
            explanations: explanationsForWrong(a.questions, given),
            next_lesson: nextLessonRef(current, standing),
            empty_blocks: [],
          },
          ...(session.channel === 'agent' ? { teaching_rules: CLOSING_RULES } : {}),
        });
      }
      const quiz = placed.lesson.quiz ?? { attempts: null, pause_minutes: 0 };
      const all = await deps.attempts.ofRun(run.id, trx);
      const used = all.filter((x) => x.status === 'finished').length;
      const left = attemptsLeft(quiz, used);
      const retry = left === 0 ? null : retryAfter(quiz, all);
      if (left === 0 && quizRequired(placed.lesson)) {
        failing = await failRun(trx, deps, {
          run,
          session,
          active: current,
          at: finishedAt,
          passed: seen.passed,
          attemptsUsed: used,
          verdict: outcome,
        });
      } else {
        const finished: QuizAttemptFinished = { ...eventBase(session, finishedAt), ...outcome };
        await emitEvent(trx, 'lessons.quiz_attempt_finished', finished);
      }
      // The failed lesson's next is completed after the commit (it may ask enrollment).
      const after = failing
        ? { next: quizExhaustedNext(null) }
        : retry
          ? { next: `Попытка не сдана: пересдача — не раньше ${retry.toISOString()} (retry_after).` }
          : {};
      return ok({
        verdict,
        next_question: null,
        finished: true,
        ...after,
        result: {
          ...base,
          session_status: 'open',
          retry_after: retry ? retry.toISOString() : null,
          attempts_left: left,
        },
      });
    });
    const failed: CourseStanding | null = failing;
    if (reply.ok && failed) {
      // What follows the failed lesson: the course's next lesson or, the course finished, the next course of the program.
      reply.data.next = quizExhaustedNext(
        await continuationAfter(deps, principal, session.course, failed, access.data.programs),
      );
    }
    if (reply.ok && closing && reply.data.result) {
      // The document's empty sections come from homework after the commit (never under the lock).
      reply.data.result.empty_blocks = await fetchEmptyBlocks(
        deps.bus,
        deps.log,
        deps.config.CONTEXT_TIMEOUT_MS,
        {
          user: session.user_id,
          course: session.course,
          release: release.release,
          lesson: session.lesson_key,
          space: session.space,
        },
        principal,
      );
    }
    return reply;
  });
}
