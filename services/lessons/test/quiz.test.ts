import {
  complete_lesson,
  events,
  lessonId,
  mark_goal,
  request_quiz,
  start_lesson,
  submit_answer,
} from '@studium/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('lessons-quiz');
});
afterAll(async () => {
  await h?.close();
});

/** Moves a student's finished attempts back in time (the pause between attempts passes). */
async function timePasses(user: string, minutes: number) {
  await sql`update quiz_attempts set finished_at = finished_at - make_interval(mins => ${minutes}) where user_id = ${user}`.execute(
    h.lessons.db,
  );
}

describe('request_quiz and submit_answer', () => {
  it('refuses the quiz while required items are open, and where there is none', async () => {
    const p = await h.student('open@t');
    const s = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'interests') });
    const r = await h.call(request_quiz, p, { session: s.session });
    expect(r).toMatchObject({ ok: false, error: { code: 'goals_open' } });
    const goals = (r as unknown as { error: { goals: Array<{ objective: string; goal: string; title: string }> } })
      .error.goals;
    expect(goals[0]).toEqual({ objective: 'positions-vs-interests', goal: 'term:T1', title: 'Позиция' });
    const done = await h.call(complete_lesson, p, { session: s.session });
    expect(done).toMatchObject({ ok: false, error: { code: 'goals_open' } });
    const w = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'why-prepare') });
    expect(await h.call(request_quiz, p, { session: w.session })).toMatchObject({
      ok: false,
      error: { code: 'quiz_not_configured' },
    });
  });

  it('fails once, meets retry_too_soon, passes after the pause, and closes the lesson', async () => {
    const p = await h.student('quiz@t');
    const s = await h.cover(p, 'interests');
    expect(await h.call(complete_lesson, p, { session: s.session })).toMatchObject({
      ok: false,
      error: { code: 'quiz_required' },
    });
    const key = await h.answersOf('interests');
    const q1 = await h.must(request_quiz, p, { session: s.session });
    expect(q1.question).toMatchObject({ number: 1, total: 3, kind: 'choice' });
    expect(JSON.stringify(q1)).not.toMatch(/correct|explanation/);
    expect(q1.teaching_rules).toContain('квиз');
    expect((await h.must(request_quiz, p, { session: s.session })).attempt).toBe(q1.attempt);

    expect(
      await h.call(submit_answer, p, {
        attempt: q1.attempt,
        question: q1.question.id,
        answer: 'V1',
        student_words: '  ',
      }),
    ).toMatchObject({ ok: false, error: { code: 'student_words_required' } });
    expect(
      await h.call(submit_answer, p, { attempt: q1.attempt, question: 'nope', answer: 'V1', student_words: '1' }),
    ).toMatchObject({ ok: false, error: { code: 'question_mismatch' } });
    expect(
      await h.call(submit_answer, p, {
        attempt: q1.attempt,
        question: q1.question.id,
        answer: 'пятый',
        student_words: '5',
      }),
    ).toMatchObject({ ok: false, error: { code: 'answer_unknown' } });
    const other = await h.student('stranger@t');
    expect(
      await h.call(submit_answer, other, {
        attempt: q1.attempt,
        question: q1.question.id,
        answer: 'V1',
        student_words: '1',
      }),
    ).toMatchObject({ ok: false, error: { code: 'not_your_session' } });

    // all wrong
    let question = q1.question;
    let last: Record<string, unknown> = {};
    for (let i = 0; i < 3; i++) {
      const a = await h.must(submit_answer, p, {
        attempt: q1.attempt,
        question: question.id,
        answer: key.get(question.id)?.wrong as string,
        student_words: 'наверное первый',
      });
      expect(a.verdict).toEqual({ correct: false });
      if (i === 0) {
        expect(
          await h.call(submit_answer, p, {
            attempt: q1.attempt,
            question: question.id,
            answer: 'V1',
            student_words: '1',
          }),
        ).toMatchObject({ ok: false, error: { code: 'question_mismatch' } });
      }
      if (a.next_question) question = a.next_question;
      last = a as Record<string, unknown>;
    }
    const failed = last as { finished: boolean; result: Record<string, unknown> };
    expect(failed.finished).toBe(true);
    expect(failed.result).toMatchObject({
      score: 0,
      pass_threshold: 0.67,
      passed: false,
      attempts_left: 2,
      session_status: 'open',
    });
    expect(failed.result.explanations).toBeUndefined();
    const retryAt = new Date(failed.result.retry_after as string).getTime();
    expect(retryAt - Date.now()).toBeGreaterThan(55 * 60_000);
    expect(
      await h.call(submit_answer, p, { attempt: q1.attempt, question: question.id, answer: 'V1', student_words: '1' }),
    ).toMatchObject({ ok: false, error: { code: 'attempt_finished' } });
    const soon = await h.call(request_quiz, p, { session: s.session });
    expect(soon).toMatchObject({
      ok: false,
      error: { code: 'retry_too_soon', retry_after: failed.result.retry_after },
    });

    await timePasses(p.user, 61);
    const q2 = await h.must(request_quiz, p, { session: s.session });
    expect(q2.attempt).not.toBe(q1.attempt);
    question = q2.question;
    const verdicts: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const right = key.get(question.id)?.right as string;
      // the first answer wrong, then the option's text instead of its id
      const option = question.options.find((o) => o.id === right)?.text as string;
      const a = await h.must(submit_answer, p, {
        attempt: q2.attempt,
        question: question.id,
        answer: i === 0 ? (key.get(question.id)?.wrong as string) : `  ${option.toUpperCase()} `,
        student_words: i === 0 ? 'первый' : option,
      });
      verdicts.push(a.verdict.correct);
      if (a.verdict.correct) expect(a.verdict.explanation).toBeTruthy();
      if (a.next_question) question = a.next_question;
      last = a as Record<string, unknown>;
    }
    expect(verdicts).toEqual([false, true, true]);
    const passed = last as { result: Record<string, unknown>; teaching_rules: string };
    expect(passed.result).toMatchObject({
      score: 0.6667,
      passed: true,
      session_status: 'closed',
      next_lesson: { id: lessonId(h.basics.course, 'why-prepare') },
      empty_blocks: [],
    });
    expect(passed.result.explanations).toEqual([{ question: q2.question.id, explanation: expect.any(String) }]);
    expect(passed.teaching_rules).toContain('закрытие');
    expect(
      await h.call(mark_goal, p, { session: s.session, goal: 'term:T1', status: 'done', evidence: 'x' }),
    ).toMatchObject({ ok: false, error: { code: 'session_closed', status: 'closed' } });
    const again = await h.must(start_lesson, p, { lesson: s.lesson.id });
    expect(again.start.opening).toBe('repeat');
    expect(again.next_step).toBeNull();
  });

  it('quiz_attempts_exhausted once the limit is used', async () => {
    const p = await h.student('limit@t');
    const s = await h.cover(p, 'opening');
    const key = await h.answersOf('opening');
    for (let attempt = 0; attempt < 2; attempt++) {
      const q = await h.must(request_quiz, p, { session: s.session });
      let question = q.question;
      for (;;) {
        const a = await h.must(submit_answer, p, {
          attempt: q.attempt,
          question: question.id,
          answer: key.get(question.id)?.wrong as string,
          student_words: 'не знаю',
        });
        if (!a.next_question) {
          expect(a.result?.attempts_left).toBe(1 - attempt);
          if (attempt === 1) expect(a.result?.retry_after).toBeNull();
          break;
        }
        question = a.next_question;
      }
    }
    expect(await h.call(request_quiz, p, { session: s.session })).toMatchObject({
      ok: false,
      error: { code: 'quiz_attempts_exhausted', attempts_used: 2 },
    });
    // the quiz is optional here: complete_lesson closes the lesson anyway
    const done = await h.must(complete_lesson, p, { session: s.session });
    expect(done).toMatchObject({ status: 'closed', next_lesson: { id: lessonId(h.basics.course, 'why-prepare') } });
    expect(await h.call(complete_lesson, p, { session: s.session })).toMatchObject({
      ok: false,
      error: { code: 'session_closed' },
    });
  });

  it('emits the lesson events through the outbox, each valid against its contract', async () => {
    const rows = (await h.lessons.db
      .selectFrom('outbox' as never)
      .select(['subject', 'payload'] as never)
      // Events in the order they were written (the relay publishes them in this order too).
      .orderBy('id' as never)
      .execute()) as Array<{ subject: string; payload: { data: Record<string, unknown> } }>;
    const mine = rows.filter((r) => r.payload.data.user === 'quiz@t');
    const subjects = new Set(mine.map((r) => r.subject));
    // No lesson_covered: the covering goal_marked says so (issue 32.4).
    expect(subjects.has(events['lessons.lesson_covered'].subject)).toBe(false);
    for (const key of [
      'lessons.session_started',
      'lessons.goal_marked',
      'lessons.quiz_attempt_finished',
      'lessons.lesson_passed',
    ] as const) {
      const contract = events[key];
      expect(subjects.has(contract.subject), key).toBe(true);
      for (const r of mine.filter((x) => x.subject === contract.subject)) {
        expect(contract.payload.safeParse(r.payload.data).success, key).toBe(true);
      }
    }
    const passed = mine.filter((r) => r.subject === events['lessons.lesson_passed'].subject);
    expect(passed).toHaveLength(1);
    expect(passed[0]?.payload.data).toMatchObject({
      via: 'quiz',
      late: false,
      lessons_passed: 1,
      lessons_total: 5,
      course_completed: false,
      // The run's student name travels with the pass (homework's review queue shows it).
      user_name: expect.any(String),
    });
    // The failed attempt has its own event; the passing one travels in lesson_passed.
    const finished = mine.filter((r) => r.subject === events['lessons.quiz_attempt_finished'].subject);
    expect(finished.map((r) => r.payload.data.passed)).toEqual([false]);
    expect(passed[0]?.payload.data.quiz_attempt).toMatchObject({ number: 2, passed: true });
    expect(mine.filter((r) => r.payload.data.lesson_covered === true)).toHaveLength(1);
  });
});
