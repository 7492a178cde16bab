import { create_course, goal_runs, mark_goal, type Principal, pass_counts, start_lesson } from '@studium/contracts';
import { Failure } from '@studium/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURATOR } from '../../../test/support/lessons.ts';
import { type Harness, startHarness } from './support/harness.ts';

let h: Harness;
const curator: Principal = CURATOR;
const stranger: Principal = { ...CURATOR, user: 'other-curator@t', full_name: 'Другой куратор' };
const moderator: Principal = { ...CURATOR, user: 'mod@t', roles: ['Moderator'] };

beforeAll(async () => {
  h = await startHarness('lessons-goal-runs');
  for (let i = 0; i < 3; i++) {
    const p = await h.student(`runner${i}@t`);
    const s = await h.must(start_lesson, p, {});
    await h.must(mark_goal, p, {
      session: s.session,
      goal: 'term:T1',
      status: 'done',
      evidence: `Пример ученика ${i}`,
      resume_from: 'дальше заблуждение',
    });
  }
});
afterAll(async () => {
  await h?.close();
});

describe('goal_runs', () => {
  it('shows runs with statuses, items and evidence to the course curator, recently started first', async () => {
    const page = await h.must(goal_runs, curator, { course: h.basics.course });
    expect(page).toMatchObject({ course: h.basics.course, lesson: null, start: 0, limit: 20, has_more: false });
    expect(page.runs.map((r) => r.student.id)).toEqual(['runner2@t', 'runner1@t', 'runner0@t']);
    const run = page.runs[0];
    expect(run).toMatchObject({
      student: { name: 'Ученик runner2@t' },
      lesson: { key: 'why-prepare', title: 'Переговоры, которые вы уже ведёте' },
      status: 'in_progress',
      resume_from: 'дальше заблуждение',
      passed_at: null,
    });
    expect(run?.accepted_at).toBeTruthy();
    expect(run?.started_at).toBeTruthy();
    const t1 = run?.objectives[0]?.goals.find((g) => g.key === 'term:T1');
    expect(t1).toMatchObject({
      status: 'done',
      evidence: 'Пример ученика 2',
      title: 'Рабочие переговоры',
      kind: 'term',
    });
    expect(t1?.session).toBeTruthy();
    expect(run?.objectives[0]).toMatchObject({
      key: 'spot-negotiations',
      text: 'Узнавать переговоры в повседневной работе тимлида',
      status: 'touched',
      quiz_confirmed: false,
    });
    expect((await h.must(goal_runs, moderator, { course: h.basics.course, lesson: 'interests' })).runs).toEqual([]);
  });

  it('pages with start and limit; invalid pages are refused', async () => {
    const first = await h.must(goal_runs, curator, { course: h.basics.course, limit: 2 });
    expect(first).toMatchObject({ start: 0, limit: 2, has_more: true });
    const second = await h.must(goal_runs, curator, { course: h.basics.course, start: '2', limit: '2' });
    expect(second).toMatchObject({ start: 2, has_more: false });
    expect(second.runs.map((r) => r.student.id)).toEqual(['runner0@t']);
    expect((await h.must(goal_runs, curator, { course: h.basics.course, limit: 50 })).limit).toBe(20);
    for (const [args, where] of [
      [{ start: -1 }, 'start'],
      [{ start: 'x' }, 'start'],
      [{ start: 1.5 }, 'start'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 'много' }, 'limit'],
    ] as const) {
      expect(await h.call(goal_runs, curator, { course: h.basics.course, ...args })).toMatchObject({
        ok: false,
        error: { code: 'invalid_page', where },
      });
    }
  });

  it('course_not_found, course_not_released, and 403 to a curator who does not lead the course and to a student', async () => {
    expect(await h.call(goal_runs, curator, { course: 'crs_nope' })).toMatchObject({
      ok: false,
      error: { code: 'course_not_found' },
    });
    const created = await h.env.bus.request(create_course, CURATOR, { title: 'Без релиза', summary: 'x' });
    if (!created.ok) throw new Error(created.error.code);
    expect(await h.call(goal_runs, curator, { course: created.data.course })).toMatchObject({
      ok: false,
      error: { code: 'course_not_released' },
    });
    await expect(h.call(goal_runs, stranger, { course: h.basics.course })).rejects.toMatchObject({ status: 403 });
    await expect(
      h.call(goal_runs, { ...stranger, roles: ['Student'] }, { course: h.basics.course }),
    ).rejects.toBeInstanceOf(Failure);
  });
});

describe('pass_counts (the cabinet passes page)', () => {
  it('counts every run of the course, past goal_runs page of 20, with goal_runs access rule', async () => {
    // 19 more runs: 22 in the lesson, more than one page of goal_runs.
    for (let i = 3; i < 22; i++) {
      const p = await h.student(`runner${i}@t`);
      const s = await h.must(start_lesson, p, {});
      if (i % 2 === 0) {
        await h.must(mark_goal, p, { session: s.session, goal: 'term:T1', status: 'done', evidence: `Пример ${i}` });
      }
    }
    expect((await h.must(goal_runs, curator, { course: h.basics.course })).has_more).toBe(true);
    const counts = await h.must(pass_counts, curator, { course: h.basics.course });
    const lesson = counts.lessons.find((l) => l.key === 'why-prepare');
    // runner0-2 marked T1 done in beforeAll, then every even one of 3..21 (4, 6, …, 20: 9).
    expect(lesson).toMatchObject({ runs: 22, passed: 0 });
    expect(lesson?.goals.find((g) => g.key === 'term:T1')).toMatchObject({ done: 12 });
    expect(counts.lessons.find((l) => l.key === 'interests')).toMatchObject({ runs: 0, passed: 0 });
    const one = await h.must(pass_counts, moderator, { course: h.basics.course, lesson: 'why-prepare' });
    expect(one.lessons.map((l) => l.key)).toEqual(['why-prepare']);
    await expect(h.call(pass_counts, stranger, { course: h.basics.course })).rejects.toMatchObject({ status: 403 });
    const unknown = await h.call(pass_counts, curator, { course: 'crs_nope' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'course_not_found' } });
  });
});
