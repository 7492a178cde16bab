import {
  get_my_progress,
  list_my_courses,
  type Principal,
  request_quiz,
  student_detail,
  submit_answer,
} from '@studium/contracts';
import { eventually } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../lessons/test/support/harness.ts';
import { call, startReporting, who } from './support/reporting.ts';

// The reports and enrollment's progress from the real lessons service, now that each call emits
// one event (issue 32.4): a covering mark's goal_marked advances the session to covered, and the
// verdict inside lesson_passed/lesson_failed is the attempt the reports list, as the separate
// lesson_covered and quiz_attempt_finished events made them before.
let h: Harness;
let reporting: Awaited<ReturnType<typeof startReporting>>;
const BOSS = 'boss@loop';

beforeAll(async () => {
  h = await startHarness('reporting-lesson-loop');
  reporting = await startReporting(h.env);
  const a = h.enrollment.admin;
  await a.upsertUser(BOSS, 'Руководитель', ['Student']);
  await a.upsertOrganization('acme', 'Акме');
  await a.addMember('acme', BOSS, 'manager');
  await a.allowCourse('acme', h.basics.course);
}, 60_000);

afterAll(async () => {
  await reporting?.close();
  await h?.close();
});

/** A member of acme with the basics course assigned, studying in the personal space. */
async function member(user: string): Promise<Principal> {
  const p = await h.student(user);
  await h.enrollment.admin.addMember('acme', user, 'member');
  await h.enrollment.admin.assignCourse('acme', user, h.basics.course, { mandatory: false });
  return p;
}

type Detail = {
  sessions: Array<{ session: string; status: string }>;
  attempts: Array<{ attempt: string; number: number; status: string; score: number; passed: boolean }>;
};

async function detail(user: string): Promise<Detail> {
  const r = await call(h.env, student_detail, who(BOSS), { user });
  if (!r.ok) throw new Error(`student_detail refused: ${r.error.code}`);
  return r.data as unknown as Detail;
}

/** Answers the interests quiz of a session, every answer right or wrong; returns the attempt. */
async function takeQuiz(p: Principal, session: string, right: boolean): Promise<string> {
  const key = await h.answersOf('interests');
  const q = await h.must(request_quiz, p, { session });
  let question: string | undefined = q.question.id;
  while (question) {
    const answer = key.get(question);
    const a: { next_question: { id: string } | null } = await h.must(submit_answer, p, {
      attempt: q.attempt,
      question,
      answer: (right ? answer?.right : answer?.wrong) as string,
      student_words: 'мой ответ',
    });
    question = a.next_question?.id;
  }
  return q.attempt;
}

async function pausePasses(user: string) {
  await sql`update quiz_attempts set finished_at = finished_at - interval '1 day' where user_id = ${user}`.execute(
    h.lessons.db,
  );
}

describe('reports from the lesson loop, one event per call', () => {
  it('a covered session, a failed attempt, then the passing attempt and the passed session', async () => {
    const p = await member('anna@loop');
    const s = await h.cover(p, 'interests');
    await eventually(async () => {
      expect((await detail(p.user)).sessions).toEqual([
        expect.objectContaining({ session: s.session, status: 'covered' }),
      ]);
    });
    const first = await takeQuiz(p, s.session, false);
    await pausePasses(p.user);
    const second = await takeQuiz(p, s.session, true);
    const d = await eventually(async () => {
      const got = await detail(p.user);
      expect(got.sessions[0]?.status).toBe('passed');
      expect(got.attempts).toHaveLength(2);
      return got;
    });
    expect(
      d.attempts
        .map((a) => [a.attempt, a.number, a.status, a.score, a.passed])
        .sort((x, y) => Number(x[1]) - Number(y[1])),
    ).toEqual([
      [first, 1, 'Failed', 0, false],
      [second, 2, 'Passed', 1, true],
    ]);
    const mine = await call(h.env, get_my_progress, p, {});
    if (!mine.ok) throw new Error(mine.error.code);
    expect(mine.data.courses).toEqual([
      expect.objectContaining({ course: h.basics.course, lessons_passed: 1, lessons_failed: 0 }),
    ]);
  });

  it("the failed last attempt of a required quiz: the attempt and the failed lesson, in reporting and enrollment's progress", async () => {
    const p = await member('boris@loop');
    const s = await h.cover(p, 'interests');
    const attempts: string[] = [];
    for (let n = 1; n <= 3; n++) {
      attempts.push(await takeQuiz(p, s.session, false));
      await pausePasses(p.user);
    }
    const d = await eventually(async () => {
      const got = await detail(p.user);
      expect(got.attempts).toHaveLength(3);
      return got;
    });
    expect(d.attempts.map((a) => [a.attempt, a.status, a.passed]).sort()).toEqual(
      attempts.map((a) => [a, 'Failed', false]).sort(),
    );
    await eventually(async () => {
      const mine = await call(h.env, get_my_progress, p, {});
      if (!mine.ok) throw new Error(mine.error.code);
      expect(mine.data.courses).toEqual([
        expect.objectContaining({ course: h.basics.course, lessons_passed: 0, lessons_failed: 1 }),
      ]);
    });
    await eventually(async () => {
      const list = await call(h.env, list_my_courses, p, {});
      if (!list.ok) throw new Error(list.error.code);
      expect(list.data.courses.find((c) => c.course === h.basics.course)).toMatchObject({ lessons_failed: 1 });
    });
  });
});
