import { enroll, get_my_progress, org_report, student_detail } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnrollment } from '../../../test/support/stack.ts';
import { publishEvents } from '../../enrollment/test/support/cards.ts';
import { call, courseCard, lessonEvents, SUBJECTS, startReporting, who } from './support/reporting.ts';

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let reporting: Awaited<ReturnType<typeof startReporting>>;

const PAST = '2020-01-01T00:00:00.000Z';
const FUTURE = '2030-06-01T00:00:00.000Z';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString();

async function orgReport(user: string, args: object = {}) {
  const r = await call(env, org_report, who(user), args);
  if (!r.ok) throw new Error(`org_report refused: ${r.error.code}`);
  if (!r.data.summary || !r.data.organizations) throw new Error('org_report without summary');
  return { ...r.data, summary: r.data.summary, organizations: r.data.organizations };
}

beforeAll(async () => {
  env = await createTestEnv('reporting-tools');
  enrollment = await startEnrollment(env);
  reporting = await startReporting(env);
  const a = enrollment.admin;
  for (const [id, name] of [
    ['boss@t', 'Мария Руководитель'],
    ['ivan@t', 'Иван Петров'],
    ['olga@t', 'Ольга Смирнова'],
    ['left@t', 'Ушедший Сотрудник'],
    ['petr@t', 'Пётр Замороженный'],
    ['boss2@t', 'Гамма Руководитель'],
    ['solo@t', 'Сам По Себе'],
  ]) {
    await a.upsertUser(id as string, name as string, ['Student']);
  }
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertOrganization('beta', 'Бета');
  await a.upsertOrganization('gamma', 'Гамма');
  await a.addMember('acme', 'boss@t', 'manager');
  await a.addMember('beta', 'boss@t', 'manager');
  await a.addMember('acme', 'ivan@t', 'member');
  await a.addMember('beta', 'olga@t', 'member');
  await a.addMember('acme', 'left@t', 'member');
  await a.addMember('gamma', 'petr@t', 'member');
  await a.addMember('gamma', 'boss2@t', 'manager');
  await publishEvents(env, SUBJECTS.card, [courseCard('c1', 3), courseCard('c2', 2)]);
  await eventually(async () => {
    const n = await enrollment.db.selectFrom('catalog').select('course').execute();
    if (n.length < 2) throw new Error('catalog not ready');
  });
  for (const org of ['acme', 'beta', 'gamma']) for (const c of ['c1', 'c2']) await a.allowCourse(org, c);
  await a.assignCourse('acme', 'ivan@t', 'c1', { mandatory: true, deadline: PAST });
  await a.assignCourse('beta', 'olga@t', 'c1', { mandatory: false, deadline: FUTURE });
  await a.assignCourse('acme', 'left@t', 'c1', { mandatory: true });
  await a.assignCourse('gamma', 'petr@t', 'c2', { mandatory: true, deadline: FUTURE });
  // Olga takes c2 on her own and passes it; beta assigns it to her later.
  const enrolled = await call(env, enroll, who('olga@t'), { course: 'c2', space: 'personal' });
  expect(enrolled.ok).toBe(true);
  const olga = lessonEvents('olga@t', 'c2', 'personal');
  await publishEvents(env, SUBJECTS.passed, [olga.passed(1, 's-o1', t(1), 1, 2), olga.passed(2, 's-o2', t(2), 2, 2)]);
  // Ivan studies c1 in acme: a session, marks, a cancelled attempt, a new attempt with the same number, a pass.
  const ivan = lessonEvents('ivan@t', 'c1', 'acme');
  await publishEvents(env, SUBJECTS.started, [ivan.started(1, 's-i1', t(10))]);
  await publishEvents(env, SUBJECTS.marked, [
    { ...ivan.marked(1, 's-i1', 'l1-D1', 'covered', t(11)), evidence: 'СЕКРЕТНОЕ СВИДЕТЕЛЬСТВО' },
    { ...ivan.marked(1, 's-i1', 'l1-D2', 'touched', t(12)), evidence: 'СЕКРЕТНОЕ СВИДЕТЕЛЬСТВО' },
  ]);
  await publishEvents(env, SUBJECTS.covered, [ivan.covered(1, 's-i1', t(13))]);
  await publishEvents(env, SUBJECTS.cancelled, [ivan.cancelled(1, 's-i1', 'att-1', 1, t(14))]);
  await publishEvents(env, SUBJECTS.finished, [
    { ...ivan.finished(1, 's-i1', 'att-2', 1, 0.9, t(15)), answers: ['ОТВЕТ УЧЕНИКА'] },
  ]);
  await publishEvents(env, SUBJECTS.passed, [ivan.passed(1, 's-i1', t(16), 1, 3)]);
  await publishEvents(env, SUBJECTS.homework, [ivan.homework(1, 'Submitted', 1, t(17))]);
  await publishEvents(env, SUBJECTS.document, [
    ivan.document('plan', 4, 1, t(18)),
    ivan.document('risks', 2, 2, t(19)),
  ]);
  await enrollment.app.flush();
  await a.assignCourse('beta', 'olga@t', 'c2', { mandatory: true, deadline: PAST });
  await a.removeMember('acme', 'left@t');
  await a.setSuspended('gamma', true);
  await enrollment.app.flush();
  // Everything above has reached the read models once the last change shows.
  await eventually(async () => {
    const r = await orgReport('boss2@t');
    expect(r.organizations[0]?.suspended).toBe(true);
    const b = await orgReport('boss@t');
    expect(b.rows.some((row) => row.user === 'left@t')).toBe(false);
    expect(b.rows.find((row) => row.user === 'olga@t' && row.course === 'c2')?.mandatory).toBe(true);
    expect(b.rows.find((row) => row.user === 'ivan@t')?.document.blocks_total).toBe(6);
  }, 15_000);
});

afterAll(async () => {
  await reporting?.close();
  await enrollment?.close();
  await env?.cleanup();
});

describe('org_report', () => {
  it('gives a manager of two organizations the rows of both, with every field of the spec', async () => {
    const r = await orgReport('boss@t');
    expect(r.organizations.map((o) => o.organization)).toEqual(['acme', 'beta']);
    expect(r.rows.map((row) => `${row.organization}:${row.user}:${row.course}`)).toEqual([
      'acme:ivan@t:c1',
      'beta:olga@t:c1',
      'beta:olga@t:c2',
    ]);
    const ivan = r.rows[0];
    expect(ivan).toMatchObject({
      full_name: 'Иван Петров',
      organization: 'acme',
      course_title: 'Курс c1',
      status: 'in_progress',
      progress: 0.33,
      deadline: PAST,
      mandatory: true,
      overdue: true,
      last_activity: t(19),
      document: { blocks_total: 6, blocks_filled: 3 },
    });
    expect(r.summary).toMatchObject({ rows: 3, people: 2, not_started: 1, in_progress: 1, completed: 1, overdue: 1 });
    expect(r.next_offset).toBeNull();
  });

  it('shows a course passed personally and assigned later as completed, not overdue', async () => {
    const r = await orgReport('boss@t', { course: 'c2' });
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0]).toMatchObject({
      user: 'olga@t',
      status: 'completed',
      progress: 1,
      overdue: false,
      mandatory: true,
    });
  });

  it('filters by status and pages in a stable order', async () => {
    const notStarted = await orgReport('boss@t', { status: 'not_started' });
    expect(notStarted.rows.map((row) => `${row.user}:${row.course}`)).toEqual(['olga@t:c1']);
    expect(notStarted.total).toBe(1);
    const first = await orgReport('boss@t', { limit: 2 });
    expect(first.rows).toHaveLength(2);
    expect(first.next_offset).toBe(2);
    const second = await orgReport('boss@t', { limit: 2, offset: first.next_offset });
    expect(second.rows.map((row) => row.course)).toEqual(['c2']);
    expect(second.next_offset).toBeNull();
  });

  it('is empty, not refused, for someone who manages nothing', async () => {
    for (const user of ['ivan@t', 'solo@t', 'nobody@t']) {
      const r = await orgReport(user);
      expect(r.rows).toEqual([]);
      expect(r.summary.rows).toBe(0);
    }
  });

  it('keeps a suspended organization in its manager report, flagged', async () => {
    const r = await orgReport('boss2@t');
    expect(r.organizations).toEqual([{ organization: 'gamma', title: 'Гамма', suspended: true }]);
    expect(r.rows.map((row) => row.user)).toEqual(['petr@t']);
  });
});

describe('student_detail', () => {
  it('shows sessions with objective statuses, attempts with the cancelled one at 0, homework status', async () => {
    const r = await call(env, student_detail, who('boss@t'), { user: 'ivan@t' });
    if (!r.ok) throw new Error(r.error.code);
    expect(r.data.full_name).toBe('Иван Петров');
    expect(r.data.courses).toEqual([expect.objectContaining({ course: 'c1', organization: 'acme', deadline: PAST })]);
    expect(r.data.sessions).toEqual([
      expect.objectContaining({
        session: 's-i1',
        lesson: 'c1.l1',
        lesson_title: 'Урок 1 курса c1',
        status: 'passed',
        started_at: t(10),
        objectives: [
          { objective: 'l1-D1', title: 'Понимает термин', status: 'covered' },
          { objective: 'l1-D2', title: 'Применяет на примере', status: 'touched' },
        ],
      }),
    ]);
    expect(r.data.attempts.map((x) => [x.attempt, x.number, x.status, x.score, x.passed])).toEqual([
      ['att-1', 1, 'Cancelled', 0, false],
      ['att-2', 1, 'Passed', 0.9, true],
    ]);
    expect(r.data.homework).toEqual([
      expect.objectContaining({ lesson: 'c1.l1', status: 'Submitted', version: 1, organization: 'acme' }),
    ]);
    const text = JSON.stringify(r.data);
    expect(text).not.toContain('СЕКРЕТНОЕ');
    expect(text).not.toContain('ОТВЕТ УЧЕНИКА');
    expect(text).not.toContain('term:T1');
  });

  it('shows a personally passed course assigned later as completed', async () => {
    const r = await call(env, student_detail, who('boss@t'), { user: 'olga@t' });
    if (!r.ok) throw new Error(r.error.code);
    expect(r.data.courses.map((c) => [c.course, c.organization, (c as { completed?: boolean }).completed])).toEqual([
      ['c1', 'beta', false],
      ['c2', 'beta', true],
    ]);
  });

  it('refuses not_your_student for a member who left, a stranger, a non-manager and an unknown login', async () => {
    for (const [caller, user] of [
      ['boss@t', 'left@t'],
      ['boss@t', 'solo@t'],
      ['boss@t', 'petr@t'],
      ['ivan@t', 'olga@t'],
      ['boss@t', 'ghost@t'],
    ] as const) {
      const r = await call(env, student_detail, who(caller), { user });
      expect(r.ok, `${caller} → ${user}`).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('not_your_student');
        expect(r.error.message).toContain(user);
      }
    }
  });

  it('still answers for an employee of a suspended organization', async () => {
    const r = await call(env, student_detail, who('boss2@t'), { user: 'petr@t' });
    expect(r.ok).toBe(true);
  });
});

describe('get_my_progress', () => {
  it('summarises the student in an organization space: overdue, share, documents, recent sessions', async () => {
    const r = await call(env, get_my_progress, who('ivan@t'), { space: 'acme' });
    if (!r.ok) throw new Error(r.error.code);
    expect(r.data).toMatchObject({ space: 'acme', courses_count: 1, overdue_count: 1 });
    expect(r.data.courses[0]).toMatchObject({
      course: 'c1',
      deadline: PAST,
      overdue: true,
      progress: 0.33,
      documents: [
        { artifact: 'plan', title: 'Документ plan', blocks_total: 4, blocks_filled: 1 },
        { artifact: 'risks', title: 'Документ risks', blocks_total: 2, blocks_filled: 2 },
      ],
    });
    expect(r.data.recent_sessions).toEqual([
      expect.objectContaining({
        session: 's-i1',
        // The session's own status (its lesson was passed in it: closed), issue 19 point 9.
        status: 'closed',
        started_at: t(10),
        lesson_title: 'Урок 1 курса c1',
      }),
    ]);
  });

  it('lists every course once in the personal space: the assignment wins over the self-enrollment', async () => {
    const r = await call(env, get_my_progress, who('olga@t'));
    if (!r.ok) throw new Error(r.error.code);
    expect(r.data.space).toBe('personal');
    expect(r.data.courses.map((c) => [c.course, c.progress, c.overdue, c.deadline])).toEqual([
      ['c1', 0, false, FUTURE],
      ['c2', 1, false, PAST],
    ]);
  });

  it('refuses a space the student does not have, and a suspended organization named explicitly', async () => {
    const none = await call(env, get_my_progress, who('ivan@t'), { space: 'beta' });
    expect(none.ok ? null : none.error.code).toBe('space_not_available');
    const suspended = await call(env, get_my_progress, who('petr@t'), { space: 'gamma' });
    expect(suspended.ok ? null : suspended.error.code).toBe('organization_suspended');
  });

  it('falls back to personal when the selected organization is suspended; its courses are left out', async () => {
    const r = await call(env, get_my_progress, who('petr@t', 'gamma'));
    if (!r.ok) throw new Error(r.error.code);
    expect(r.data.space).toBe('personal');
    expect(r.data.courses).toEqual([]);
  });
});
