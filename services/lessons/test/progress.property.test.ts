import {
  complete_lesson,
  lessonId,
  mark_goal,
  type OutputOf,
  type Principal,
  type Reply,
  request_quiz,
  start_lesson,
  submit_answer,
} from '@studium/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_ORDER, type RunStatus } from '../src/domain/lesson-progress.ts';
import { type Harness, startHarness } from './support/harness.ts';

// For random sequences of mark_goal, request_quiz, submit_answer (sometimes twice at once) and
// complete_lesson against the real service: the run's status never goes back, a passed lesson
// stays passed, no attempt is scored twice, and a refused call changes nothing.
let h: Harness;
let students = 0;

beforeAll(async () => {
  h = await startHarness('lessons-property');
});
afterAll(async () => {
  await h?.close();
});

const command = fc.oneof(
  fc.record({
    kind: fc.constant('mark' as const),
    goal: fc.nat(8),
    status: fc.constantFrom('done', 'planned', 'not_needed', 'open'),
    evidence: fc.boolean(),
  }),
  fc.constant({ kind: 'quiz' as const }),
  fc.record({ kind: fc.constant('answer' as const), right: fc.boolean(), twice: fc.boolean() }),
  fc.constant({ kind: 'complete' as const }),
);

/** Everything a call may write for this student's run, to compare before and after a refusal. */
async function snapshot(user: string) {
  const db = h.lessons.db;
  const runs = await db
    .selectFrom('runs')
    .select(['id', 'status', 'resume_from', 'passed_at'])
    .where('user_id', '=', user)
    .execute();
  const ids = runs.map((r) => r.id);
  const marks = ids.length
    ? await db
        .selectFrom('goal_marks')
        .select(['goal', 'status', 'evidence', 'marked_at'])
        .where('run_id', 'in', ids)
        .orderBy('goal')
        .execute()
    : [];
  const attempts = await db
    .selectFrom('quiz_attempts')
    .select(['id', 'status', 'score'])
    .where('user_id', '=', user)
    .orderBy('id')
    .execute();
  const answers = attempts.length
    ? await db
        .selectFrom('quiz_answers')
        .select(['attempt_id', 'question'])
        .where(
          'attempt_id',
          'in',
          attempts.map((a) => a.id),
        )
        .orderBy('attempt_id')
        .orderBy('question')
        .execute()
    : [];
  return JSON.stringify({ runs, marks, attempts, answers });
}

async function runStatus(user: string): Promise<RunStatus> {
  const row = await h.lessons.db
    .selectFrom('runs')
    .select('status')
    .where('user_id', '=', user)
    .executeTakeFirstOrThrow();
  return row.status;
}

describe('lesson progress under random calls', () => {
  it('never goes backwards, stays passed, scores each attempt once', async () => {
    const answers = new Map([...(await h.answersOf('opening')), ...(await h.answersOf('batna'))]);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('opening', 'batna'),
        fc.array(command, { minLength: 4, maxLength: 24 }),
        async (lesson, cmds) => {
          const p: Principal = await h.student(`prop${students++}@t`);
          const start = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, lesson) });
          const goals = start.lesson_map.flatMap((o) => o.goals.map((g) => g.key));
          let attempt: { id: string; question: string } | null = null;
          let previous: RunStatus = await runStatus(p.user);
          for (const cmd of cmds) {
            const before = await snapshot(p.user);
            let refused = false;
            if (cmd.kind === 'mark') {
              const r = await h.call(mark_goal, p, {
                session: start.session,
                goal: goals[cmd.goal % goals.length] as string,
                status: cmd.status,
                ...(cmd.evidence ? { evidence: 'ученик показал на своём случае' } : {}),
              });
              refused = !r.ok;
            } else if (cmd.kind === 'quiz') {
              const r = await h.call(request_quiz, p, { session: start.session });
              refused = !r.ok;
              if (r.ok) attempt = { id: r.data.attempt, question: r.data.question.id };
            } else if (cmd.kind === 'complete') {
              refused = !(await h.call(complete_lesson, p, { session: start.session })).ok;
            } else if (attempt) {
              const key = answers.get(attempt.question);
              const args = {
                attempt: attempt.id,
                question: attempt.question,
                answer: (cmd.right ? key?.right : key?.wrong) as string,
                student_words: 'мой ответ',
              };
              const replies: Array<Reply<OutputOf<typeof submit_answer>>> = await Promise.all(
                (cmd.twice ? [1, 2] : [1]).map(() => h.call(submit_answer, p, args)),
              );
              const accepted = replies.filter((r) => r.ok);
              expect(accepted.length).toBeLessThanOrEqual(1);
              const done: Reply<OutputOf<typeof submit_answer>> | undefined = accepted[0];
              if (done?.ok)
                attempt = done.data.next_question ? { id: attempt.id, question: done.data.next_question.id } : null;
              refused = accepted.length === 0;
            }
            if (refused) expect(await snapshot(p.user)).toBe(before);
            const now = await runStatus(p.user);
            expect(RUN_ORDER.indexOf(now)).toBeGreaterThanOrEqual(RUN_ORDER.indexOf(previous));
            if (previous === 'passed') expect(now).toBe('passed');
            previous = now;
          }
          // every finished attempt has one answer per question and one verdict event (its own, or inside
          // the lesson_passed/lesson_failed it caused); one lesson_passed per run
          const attempts = await h.lessons.db
            .selectFrom('quiz_attempts')
            .select(['id', 'status', 'questions'])
            .where('user_id', '=', p.user)
            .execute();
          const outbox = (await h.lessons.db
            .selectFrom('outbox' as never)
            .select(['subject', 'payload'] as never)
            .execute()) as Array<{
            subject: string;
            payload: { data: { attempt?: string; quiz_attempt?: { attempt: string }; user: string } };
          }>;
          for (const a of attempts.filter((x) => x.status === 'finished')) {
            const given = await h.lessons.db
              .selectFrom('quiz_answers')
              .select('question')
              .where('attempt_id', '=', a.id)
              .execute();
            expect(given).toHaveLength(a.questions.length);
            expect(
              outbox.filter(
                (e) =>
                  (e.subject === 'evt.lessons.quiz_attempt_finished' && e.payload.data.attempt === a.id) ||
                  e.payload.data.quiz_attempt?.attempt === a.id,
              ),
            ).toHaveLength(1);
          }
          const passedEvents = outbox.filter(
            (e) => e.subject === 'evt.lessons.lesson_passed' && e.payload.data.user === p.user,
          );
          expect(passedEvents.length).toBe(previous === 'passed' ? 1 : 0);
        },
      ),
      { numRuns: 14, seed: Number(process.env.PROPERTY_SEED ?? Date.now() % 1_000_000) },
    );
  }, 240_000);
});
