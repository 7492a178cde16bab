import {
  complete_lesson,
  lesson_item,
  lessonId,
  list_my_courses,
  mark_goal,
  type Principal,
  request_quiz,
  resetProgress,
  start_lesson,
  submit_answer,
} from '@studium/contracts';
import { eventually } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { studentOf } from '../../../test/support/lessons.ts';
import { type Harness, startHarness } from './support/harness.ts';

// Fidelity of the lesson loop (issue 19): what the lesson tools and the course list answer in the
// places a line-by-line check of the spec found them wrong.
let h: Harness;
beforeAll(async () => {
  h = await startHarness('lessons-loop');
});
afterAll(async () => {
  await h?.close();
});

/** The course's next_lesson in list_my_courses once enrollment has counted `passed` lessons. */
async function nextLesson(p: Principal, passed: number) {
  return eventually(async () => {
    const reply = await h.call(list_my_courses, p, {});
    if (!reply.ok) throw new Error(reply.error.code);
    const c = reply.data.courses.find((x) => x.course === h.basics.course);
    expect(c?.lessons_completed).toBe(passed);
    return c?.next_lesson;
  });
}

describe('list_my_courses next_lesson', () => {
  it('is the first lesson in course order not yet passed, not the lesson at «number passed»', async () => {
    const p = await h.student('last-only@t');
    const s = await h.cover(p, 'closing');
    await h.must(complete_lesson, p, { session: s.session });
    expect(await nextLesson(p, 1)).toEqual({ id: `${h.basics.course}.why-prepare`, title: expect.any(String) });
    const w = await h.cover(p, 'why-prepare');
    await h.must(complete_lesson, p, { session: w.session });
    expect((await nextLesson(p, 2))?.id).toBe(`${h.basics.course}.interests`);
  });
});

describe('submit_answer after access was lost mid-attempt', () => {
  it('is not_enrolled, as the other lesson tools answer', async () => {
    const a = h.enrollment.admin;
    await a.upsertOrganization('gone', 'Ушли');
    await a.allowCourse('gone', h.basics.course);
    await a.upsertUser('leaver@t', 'Сотрудник', ['Student']);
    await a.addMember('gone', 'leaver@t', 'member');
    await a.assignCourse('gone', 'leaver@t', h.basics.course);
    const p: Principal = studentOf('leaver@t', 'gone');
    const s = await h.cover(p, 'interests');
    const q = await h.must(request_quiz, p, { session: s.session });
    await a.removeMember('gone', 'leaver@t');
    const refused = { ok: false, error: { code: 'not_enrolled', course: h.basics.course, space: 'gone' } };
    await eventually(async () =>
      expect(
        await h.call(submit_answer, p, {
          attempt: q.attempt,
          question: q.question.id,
          answer: 'V1',
          student_words: '1',
        }),
      ).toMatchObject(refused),
    );
    expect(await h.call(request_quiz, p, { session: s.session })).toMatchObject(refused);
  });
});

describe('an unknown session or attempt id', () => {
  it('is not_your_session on every lesson tool, as report_issue and remember answer', async () => {
    const p = await h.student('unknown-ids@t');
    const session = 'ses_doesnotexist';
    const refused = { ok: false, error: { code: 'not_your_session', session } };
    expect(await h.call(lesson_item, p, { session, goal: 'term:T1' })).toMatchObject(refused);
    expect(await h.call(mark_goal, p, { session, goal: 'term:T1', status: 'done', evidence: 'x' })).toMatchObject(
      refused,
    );
    expect(await h.call(request_quiz, p, { session })).toMatchObject(refused);
    expect(await h.call(complete_lesson, p, { session })).toMatchObject(refused);
    expect(
      await h.call(submit_answer, p, { attempt: 'att_doesnotexist', question: 'Q1', answer: 'V1', student_words: '1' }),
    ).toMatchObject({ ok: false, error: { code: 'not_your_session', attempt: 'att_doesnotexist' } });
  });
});

describe('refusals the descriptions now name', () => {
  it('request_quiz on a closed session: session_closed', async () => {
    const p = await h.student('closed-quiz@t');
    const s = await h.cover(p, 'interests');
    const q = await h.must(request_quiz, p, { session: s.session });
    const key = await h.answersOf('interests');
    let question: string | undefined = q.question.id;
    while (question) {
      const a: { next_question: { id: string } | null } = await h.must(submit_answer, p, {
        attempt: q.attempt,
        question,
        answer: key.get(question)?.right as string,
        student_words: 'ответ',
      });
      question = a.next_question?.id;
    }
    expect(await h.call(request_quiz, p, { session: s.session })).toMatchObject({
      ok: false,
      error: { code: 'session_closed', session: s.session, status: 'closed' },
    });
  });

  it('submit_answer after a reset of progress: run_archived', async () => {
    const p = await h.student('reset-answer@t');
    const s = await h.cover(p, 'batna');
    const q = await h.must(request_quiz, p, { session: s.session });
    await h.env.bus.request(resetProgress, null, { user: p.user, course: h.basics.course });
    expect(
      await h.call(submit_answer, p, { attempt: q.attempt, question: q.question.id, answer: 'V1', student_words: '1' }),
    ).toMatchObject({ ok: false, error: { code: 'run_archived' } });
  });
});

describe('a required item reopened between request_quiz and the last answer', () => {
  it('the last answer re-checks: goals_open and nothing written; closed again, the same answer passes', async () => {
    const p = await h.student('reopen@t');
    const s = await h.cover(p, 'interests');
    const required = s.lesson_map.flatMap((o) => o.goals).find((g) => g.required)?.key as string;
    const q = await h.must(request_quiz, p, { session: s.session });
    const key = await h.answersOf('interests');
    const answer = (question: string) => ({
      attempt: q.attempt,
      question,
      answer: key.get(question)?.right as string,
      student_words: 'ответ',
    });
    let question = q.question.id;
    for (;;) {
      const a: { next_question: unknown } = await h.must(submit_answer, p, answer(question));
      const next = a.next_question as { id: string; number: number; total: number };
      question = next.id;
      if (next.number === next.total) break;
    }
    await h.must(mark_goal, p, { session: s.session, goal: required, status: 'open' });
    expect(await h.call(submit_answer, p, answer(question))).toMatchObject({
      ok: false,
      error: { code: 'goals_open', goals: [{ goal: required }] },
    });
    const answers = await h.lessons.db
      .selectFrom('quiz_answers')
      .select('question')
      .where('attempt_id', '=', q.attempt)
      .execute();
    expect(answers.map((r) => r.question)).not.toContain(question);
    await h.must(mark_goal, p, { session: s.session, goal: required, status: 'done', evidence: 'Показал снова' });
    const last = await h.must(submit_answer, p, answer(question));
    expect(last.result).toMatchObject({ passed: true, session_status: 'closed' });
  });
});

describe('a required quiz with no attempts left', () => {
  it('next says when during retry_too_soon; once exhausted next_step is null, next says so, argless start_lesson skips it', async () => {
    const p = await h.student('exhausted@t');
    const w = await h.cover(p, 'why-prepare');
    await h.must(complete_lesson, p, { session: w.session });
    const s = await h.cover(p, 'interests');
    const fail = async () => {
      const q = await h.must(request_quiz, p, { session: s.session });
      const key = await h.answersOf('interests');
      let question: string | undefined = q.question.id;
      let last: { next?: string; result?: unknown } = {};
      while (question) {
        const a: { next_question: { id: string } | null; next?: string; result?: unknown } = await h.must(
          submit_answer,
          p,
          { attempt: q.attempt, question, answer: key.get(question)?.wrong as string, student_words: 'не знаю' },
        );
        last = a;
        question = a.next_question?.id;
      }
      return last;
    };
    const first = await fail();
    expect(first.next).toMatch(/не раньше .*T/);
    // During the pause: the step is still the quiz, and next says from when.
    const paused = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'interests') });
    expect(paused.next_step).toEqual({ kind: 'quiz' });
    expect(paused.next).toMatch(/retry_too_soon/);
    const soon = await h.call(request_quiz, p, { session: s.session });
    expect(soon).toMatchObject({ ok: false, error: { code: 'retry_too_soon' } });
    expect(paused.next).toContain(
      `не раньше ${(soon as unknown as { error: { retry_after: string } }).error.retry_after}`,
    );
    const pastPause = () =>
      sql`update quiz_attempts set finished_at = finished_at - interval '1 day' where user_id = ${p.user}`.execute(
        h.lessons.db,
      );
    await pastPause();
    await fail();
    await pastPause();
    const third = await fail();
    expect(third.result).toMatchObject({ passed: false, attempts_left: 0 });
    expect(third.next).toContain('report_issue');
    // Lessons are left in the course: every hint names the call that goes on to the next one.
    const goOn = `start_lesson {"course":"${h.basics.course}"}`;
    expect(third.next).toContain(goOn);
    const exhausted = await h.call(request_quiz, p, { session: s.session });
    expect(exhausted).toMatchObject({ ok: false, error: { code: 'quiz_attempts_exhausted' } });
    expect((exhausted as unknown as { error: { message: string } }).error.message).toContain(goOn);
    // The lesson itself: no next step, and a next that says it cannot be passed any more.
    const again = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'interests') });
    expect(again.next_step).toBeNull();
    expect(again.next).toContain('урок больше не зачесть');
    expect(again.next).toContain('report_issue');
    const required = again.lesson_map.flatMap((o) => o.goals).find((g) => g.required)?.key as string;
    const marked = await h.must(mark_goal, p, {
      session: again.session,
      goal: required,
      status: 'done',
      evidence: 'Повторил',
    });
    expect(marked.next_step).toBeNull();
    expect(marked.next).toContain('урок больше не зачесть');
    expect(marked.next).toContain(goOn);
    expect(again.next).toContain(goOn);
    // start_lesson without arguments (and with the course) goes on to the next lesson.
    const next = await h.must(start_lesson, p, {});
    expect(next.lesson.key).toBe('batna');
    expect((await h.must(start_lesson, p, { course: h.basics.course })).lesson.key).toBe('batna');
  });
});

describe('start_lesson with a space', () => {
  it('space_not_available for a space the student does not have; course_not_in_space where the course is not', async () => {
    const a = h.enrollment.admin;
    await a.upsertOrganization('elsewhere', 'Другая');
    const p = await h.student('spaces@t');
    await a.addMember('elsewhere', 'spaces@t', 'member');
    expect(await h.call(start_lesson, p, { course: h.basics.course, space: 'nowhere' })).toMatchObject({
      ok: false,
      error: { code: 'space_not_available' },
    });
    await eventually(async () =>
      expect(await h.call(start_lesson, p, { course: h.basics.course, space: 'elsewhere' })).toMatchObject({
        ok: false,
        error: { code: 'course_not_in_space' },
      }),
    );
  });
});
