import { resolve } from 'node:path';
import {
  complete_lesson,
  course_outline,
  courseAccess,
  create_course,
  enroll,
  lesson_item,
  lessonId,
  mark_goal,
  request_quiz,
  start_lesson,
  startLessonChannel,
} from '@studium/contracts';
import { eventually } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURATOR, EXAMPLES, publishMap, studentOf } from '../../../test/support/lessons.ts';
import { type Harness, startHarness } from './support/harness.ts';

let h: Harness;
let advanced: string;
let draft: string;
beforeAll(async () => {
  h = await startHarness('lessons-start', { WEB_DEMO_LESSONS: '1' });
  advanced = (await publishMap(h.env.bus, resolve(EXAMPLES, 'negotiation-advanced'))).course;
  const created = await h.env.bus.request(create_course, CURATOR, { title: 'Черновик', summary: 'Без релиза' });
  if (!created.ok) throw new Error(created.error.code);
  draft = created.data.course;
  const a = h.enrollment.admin;
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertOrganization('frozen', 'Заморозка');
  for (const c of [h.basics.course, advanced, draft]) {
    await a.allowCourse('acme', c);
    await a.allowCourse('frozen', c);
  }
});
afterAll(async () => {
  await h?.close();
});

/** A member of an organization with an assigned course. */
async function employee(
  user: string,
  org: string,
  course: string,
  opts: { mandatory?: boolean; deadline?: string | null } = {},
) {
  await h.enrollment.admin.upsertUser(user, `Сотрудник ${user}`, ['Student']);
  await h.enrollment.admin.addMember(org, user, 'member');
  await h.enrollment.admin.assignCourse(org, user, course, opts);
  return studentOf(user, org, `Сотрудник ${user}`);
}

describe('start_lesson: which lesson', () => {
  it('without arguments: mandatory and overdue first, then the last session lesson, then the next one', async () => {
    const p = await h.student('pick@t');
    await h.enrollment.admin.upsertOrganization('acme', 'Акме');
    await h.enrollment.admin.addMember('acme', 'pick@t', 'member');
    await h.enrollment.admin.assignCourse('acme', 'pick@t', advanced, {
      mandatory: true,
      deadline: '2099-01-01T00:00:00Z',
    });
    const first = await h.must(start_lesson, { ...p, space: 'acme' }, {});
    expect(first.lesson.course).toBe(advanced);
    expect(first.space).toBe('acme');
    // with course: the next lesson of that course, not the more urgent one
    const basics = await h.must(start_lesson, p, { course: h.basics.course });
    expect(basics.lesson.key).toBe('why-prepare');
    expect(basics.start.opening).toBe('first_in_course');
    // the last session's lesson comes back while it is not passed
    expect((await h.must(start_lesson, p, {})).session).toBe(basics.session);
    for (const o of basics.lesson_map)
      for (const g of o.goals)
        if (g.required)
          await h.must(mark_goal, p, { session: basics.session, goal: g.key, status: 'done', evidence: 'да' });
    await h.must(complete_lesson, p, { session: basics.session });
    const next = await h.must(start_lesson, p, {});
    expect(next.lesson.key).toBe('interests');
    expect(next.start.opening).toBe('new_lesson');
    expect(next.history).toMatchObject({ lessons: [{ key: 'why-prepare', status: 'passed', open_objectives: [] }] });
    const outline = await h.must(course_outline, p, { course: h.basics.course });
    const lessons = outline.chapters.flatMap((c) => c.lessons);
    expect(lessons.map((l) => [l.key, l.completed, l.current])).toEqual([
      ['why-prepare', true, false],
      ['interests', false, true],
      ['batna', false, false],
      ['opening', false, false],
      ['closing', false, false],
    ]);
    expect(lessons[0]?.objectives.every((o) => o.status === 'covered')).toBe(true);
    expect(outline.chapters[0]).toMatchObject({ lessons_started: 2, lessons_completed: 1 });
    expect(lessons[0]?.homework).toMatchObject({ answer_mode: 'text' });
    expect(lessons[0]?.blocks.length).toBeGreaterThan(0);
  });

  it('overdue is a flag and a signal, and the pass is late', async () => {
    const p = await employee('late@t', 'acme', h.basics.course, { mandatory: true, deadline: '2020-01-01T00:00:00Z' });
    const s = await h.must(start_lesson, p, { course: h.basics.course });
    expect(s.lesson.overdue).toBe(true);
    expect(s.signals?.some((x) => x.includes('Срок курса уже прошёл'))).toBe(true);
    // each signal once per session
    expect((await h.must(start_lesson, p, { course: h.basics.course })).signals).toBeUndefined();
    for (const o of s.lesson_map)
      for (const g of o.goals)
        if (g.required) await h.must(mark_goal, p, { session: s.session, goal: g.key, status: 'done', evidence: 'да' });
    await h.must(complete_lesson, p, { session: s.session });
    const rows = await h.lessons.db
      .selectFrom('runs')
      .select(['passed_late'])
      .where('user_id', '=', 'late@t')
      .execute();
    expect(rows).toEqual([{ passed_late: true }]);
  });
});

describe('start_lesson refusals', () => {
  it('lesson_not_found, not_enrolled, course_not_released, organization_suspended', async () => {
    const p = await h.student('refusals@t');
    expect(await h.call(start_lesson, p, { lesson: 'garbage' })).toMatchObject({
      ok: false,
      error: { code: 'lesson_not_found' },
    });
    expect(await h.call(start_lesson, p, { lesson: lessonId(h.basics.course, 'nope') })).toMatchObject({
      ok: false,
      error: { code: 'lesson_not_found' },
    });
    expect(await h.call(start_lesson, p, { course: advanced })).toMatchObject({
      ok: false,
      error: { code: 'not_enrolled' },
    });
    const d = await employee('draft@t', 'acme', draft);
    expect(await h.call(start_lesson, d, { course: draft })).toMatchObject({
      ok: false,
      error: { code: 'course_not_released' },
    });
    expect(await h.call(course_outline, d, { course: draft })).toMatchObject({
      ok: false,
      error: { code: 'course_not_released' },
    });
    const f = await employee('frozen@t', 'frozen', h.basics.course);
    await h.enrollment.admin.setSuspended('frozen', true);
    await h.accessSettled('frozen@t');
    expect(await h.call(start_lesson, f, { course: h.basics.course, space: 'frozen' })).toMatchObject({
      ok: false,
      error: { code: 'organization_suspended' },
    });
    expect(await h.call(course_outline, p, { course: advanced })).toMatchObject({
      ok: false,
      error: { code: 'not_enrolled' },
    });
  });

  it('access revoked during a session: every session tool refuses organization_suspended', async () => {
    await h.enrollment.admin.upsertOrganization('thaw', 'Оттепель');
    await h.enrollment.admin.allowCourse('thaw', h.basics.course);
    const p = await employee('revoked@t', 'thaw', h.basics.course);
    const s = await h.must(start_lesson, p, { course: h.basics.course, space: 'thaw' });
    await h.enrollment.admin.setSuspended('thaw', true);
    const refused = { ok: false, error: { code: 'organization_suspended' } };
    // Refused within one event's lag of the suspension (the projection, docs/decisions.md).
    await eventually(async () => {
      expect(await h.call(lesson_item, p, { session: s.session, goal: 'term:T1' })).toMatchObject(refused);
    }, 5000);
    expect(
      await h.call(mark_goal, p, { session: s.session, goal: 'term:T1', status: 'done', evidence: 'x' }),
    ).toMatchObject(refused);
    expect(await h.call(lesson_item, p, { session: s.session, goal: 'term:T1' })).toMatchObject(refused);
    expect(await h.call(complete_lesson, p, { session: s.session })).toMatchObject(refused);
    expect(await h.call(request_quiz, p, { session: s.session })).toMatchObject(refused);
  });

  it('nothing_to_study without enrollments', async () => {
    await h.enrollment.admin.upsertUser('none@t', 'Никто', ['Student']);
    expect(await h.call(start_lesson, studentOf('none@t'), {})).toMatchObject({
      ok: false,
      error: { code: 'nothing_to_study' },
    });
  });

  it('program_order: a course held back by an ordered program', async () => {
    const p = await employee('chain@t', 'acme', advanced);
    await h.enrollment.admin.saveProgram('track', 'Трек', true, [h.basics.course, advanced]);
    await h.enrollment.admin.addProgramMember('track', 'chain@t');
    await h.accessSettled('chain@t');
    const refused = await h.call(start_lesson, p, { course: advanced });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'program_order', program: 'track', program_title: 'Трек', previous: { course: h.basics.course } },
    });
    // The same fields as enroll's program_order.
    await h.enrollment.admin.upsertUser('chain2@t', 'Ученик', ['Student']);
    await h.enrollment.admin.addProgramMember('track', 'chain2@t');
    const enrolled = await h.call(enroll, studentOf('chain2@t'), { course: advanced });
    expect(enrolled).toMatchObject({ ok: false, error: { code: 'program_order' } });
    const fields = (r: typeof refused) =>
      r.ok
        ? []
        : Object.keys(r.error)
            .filter((k) => k !== 'message')
            .sort();
    expect(fields(refused)).toEqual(fields(enrolled as typeof refused));
  });

  it('unknown_channel and web_demo_exhausted (web chat over the channel operation)', async () => {
    const p = await h.student('web@t');
    expect(await h.env.bus.request(startLessonChannel, p, { channel: 'sms' })).toMatchObject({
      ok: false,
      error: { code: 'unknown_channel' },
    });
    const web = await h.env.bus.request(startLessonChannel, p, { channel: 'web', course: h.basics.course });
    if (!web.ok) throw new Error(web.error.code);
    expect(web.data.teaching_rules).toBeUndefined();
    expect(web.data.lesson).toMatchObject({ number: 1, total: 5, demo_lessons_left: 0 });
    expect(
      await h.env.bus.request(startLessonChannel, p, { channel: 'web', lesson: lessonId(h.basics.course, 'batna') }),
    ).toMatchObject({ ok: false, error: { code: 'web_demo_exhausted', lessons_used: 1, lessons_limit: 1 } });
    // the same lesson continues; the agent channel is not limited
    expect((await h.env.bus.request(startLessonChannel, p, { channel: 'web', course: h.basics.course })).ok).toBe(true);
    expect((await h.call(start_lesson, p, { lesson: lessonId(h.basics.course, 'batna') })).ok).toBe(true);
  });

  it('busy: concurrent starts of one lesson never make two sessions', async () => {
    const p = await h.student('twice@t');
    let busy = 0;
    for (let i = 0; i < 10 && busy === 0; i++) {
      const replies = await Promise.all([1, 2, 3].map(() => h.call(start_lesson, p, { course: h.basics.course })));
      for (const r of replies) expect(r.ok || r.error.code === 'busy').toBe(true);
      busy += replies.filter((r) => !r.ok).length;
    }
    expect(busy).toBeGreaterThan(0);
    const sessions = await h.lessons.db.selectFrom('sessions').select('id').where('user_id', '=', 'twice@t').execute();
    expect(sessions).toHaveLength(1);
  });
});

describe('course access from the projection', () => {
  it('asks enrollment nothing per call once the projection holds the student', async () => {
    const p = await h.student('steady@t');
    await h.accessSettled('steady@t');
    // Every course_access request on the bus (the operator's user may listen under the prefix).
    const operator = await h.env.as('operator');
    let asked = 0;
    const sub = operator.subscribe(`${h.env.prefix}.enrollment.course_access`, { callback: () => asked++ });
    await operator.flush();
    try {
      const s = await h.cover(p, 'why-prepare');
      await h.must(lesson_item, p, { session: s.session, goal: s.lesson_map[0]?.goals[0]?.key as string });
      await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'why-prepare') });
      expect(asked).toBe(0);
      // The listener hears the subject (the count can fail): a request of the test's own.
      await h.env.bus.request(courseAccess, p, {
        user: 'steady@t',
        course: h.basics.course,
        space: null,
        course_space: null,
      });
      await eventually(async () => expect(asked).toBe(1));
    } finally {
      sub.unsubscribe();
    }
  });

  it('refuses a revoked enrollment (its membership removed) within one event lag', async () => {
    await h.enrollment.admin.upsertOrganization('proj', 'Проекция');
    await h.enrollment.admin.allowCourse('proj', h.basics.course);
    const p = await employee('proj@t', 'proj', h.basics.course);
    await h.accessSettled('proj@t');
    const s = await h.must(start_lesson, p, { course: h.basics.course, space: 'proj' });
    await h.must(lesson_item, p, { session: s.session, goal: 'term:T1' });
    await h.enrollment.admin.removeMember('proj', 'proj@t');
    await eventually(async () => {
      expect(await h.call(lesson_item, p, { session: s.session, goal: 'term:T1' })).toMatchObject({
        ok: false,
        error: { code: 'not_enrolled' },
      });
    }, 5000);
  });
});
