import { ENROLLED, enroll, list_my_courses } from '@studium/contracts';
import { streamNames } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, seedCards } from './support/cards.ts';
import { startEnrollmentService, student } from './support/service.ts';

let env: TestEnv;
let svc: Awaited<ReturnType<typeof startEnrollmentService>>;

beforeAll(async () => {
  env = await createTestEnv('enroll');
  svc = await startEnrollmentService(env);
  const a = svc.admin;
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertOrganization('frozen', 'Заморозка');
  await a.upsertUser('free@t', 'Свободный Ученик', ['Student']);
  await a.upsertUser('emp@t', 'Сотрудник', ['Student']);
  await a.addMember('acme', 'emp@t', 'member');
  await a.addMember('frozen', 'emp@t', 'member');
  await seedCards(env, svc.db, [
    card('open'),
    card('closed'),
    card('soon', { status: 'upcoming' }),
    card('draft', { status: 'draft' }),
    card('first'),
    card('second'),
    card('frozen-course'),
    card('empty', { lessons: [] }),
    card('hidden-draft', { status: 'draft', title: 'Тайный черновик' }),
    card('hidden-soon', { status: 'upcoming', title: 'Тайный анонс' }),
    card('hidden-open', { title: 'Тайный курс' }),
  ]);
  await a.allowCourse('acme', 'open');
  await a.allowCourse('acme', 'soon');
  await a.allowCourse('acme', 'empty');
  await a.allowCourse('frozen', 'frozen-course');
  await a.saveProgram('chain', 'Цепочка', true, ['first', 'second']);
  await a.addProgramMember('chain', 'free@t');
  await a.setSuspended('frozen', true);
});

afterAll(async () => {
  await svc?.close();
  await env?.cleanup();
});

const enrollAs = (user: string, args: { course: string; space?: string }, selected = 'personal') =>
  env.bus.request(enroll, student(user, selected), args);

const myCourses = async (user: string, space?: string) => {
  const reply = await env.bus.request(list_my_courses, student(user), space ? { space } : {});
  if (!reply.ok) throw new Error(`refused: ${reply.error.code}`);
  return reply.data;
};

describe('enroll', () => {
  it('enrolls from the catalog, answers with the first lesson and emits enrollment.enrolled', async () => {
    const reply = await enrollAs('free@t', { course: 'open' });
    expect(reply).toEqual({
      ok: true,
      data: { course: 'open', title: 'Курс open', space: 'personal', first_lesson: { id: 'open-l1', title: 'Урок 1' } },
    });
    await svc.app.flush();
    const jsm = await (await env.as('operator')).jetstreamManager();
    const names = streamNames(env.prefix);
    const msg = await eventually(() => jsm.streams.getMessage(names.stream, { last_by_subj: names.subject(ENROLLED) }));
    expect(msg.json<{ data: unknown }>().data).toMatchObject({
      user: 'free@t',
      course: 'open',
      space: 'personal',
      organization: null,
      self_enrolled: true,
    });
  });

  it('refuses already_enrolled, and a refused write changes nothing', async () => {
    const reply = await enrollAs('free@t', { course: 'open' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'already_enrolled', course: 'open', space: 'personal' } });
    expect(await svc.admin.listEnrollments({ user: 'free@t' })).toHaveLength(1);
  });

  it('refuses course_not_published for a draft and for an unknown course', async () => {
    expect(await enrollAs('free@t', { course: 'draft' })).toMatchObject({
      ok: false,
      error: { code: 'course_not_published', course: 'draft' },
    });
    expect(await enrollAs('free@t', { course: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'course_not_published', course: 'nope' },
    });
  });

  it('refuses course_upcoming for an announcement', async () => {
    const reply = await enrollAs('free@t', { course: 'soon' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'course_upcoming', course: 'soon' } });
    if (!reply.ok) expect(reply.error.message).toContain('notify_when_released');
  });

  it('refuses course_not_allowed when no organization of the employee opened the course', async () => {
    expect(await enrollAs('emp@t', { course: 'closed' })).toMatchObject({
      ok: false,
      error: { code: 'course_not_allowed', course: 'closed', space: 'personal' },
    });
    // Opened only to a suspended organization: not open to the employee either.
    expect(await enrollAs('emp@t', { course: 'frozen-course' })).toMatchObject({
      ok: false,
      error: { code: 'course_not_allowed' },
    });
    const inAcme = await enrollAs('emp@t', { course: 'closed', space: 'acme' });
    expect(inAcme).toMatchObject({ ok: false, error: { code: 'course_not_allowed', space: 'acme' } });
    if (!inAcme.ok) expect(inAcme.error.message).toContain('Акме');
  });

  it('names a course the student cannot see by its id only, never by its title', async () => {
    const draft = await enrollAs('emp@t', { course: 'hidden-draft' });
    expect(draft).toMatchObject({ ok: false, error: { code: 'course_not_published', course: 'hidden-draft' } });
    // An announcement not opened to the employee's organizations is not theirs to be told about.
    const soon = await enrollAs('emp@t', { course: 'hidden-soon' });
    expect(soon).toMatchObject({ ok: false, error: { code: 'course_not_allowed', course: 'hidden-soon' } });
    const open = await enrollAs('emp@t', { course: 'hidden-open', space: 'acme' });
    expect(open).toMatchObject({ ok: false, error: { code: 'course_not_allowed', course: 'hidden-open' } });
    for (const reply of [draft, soon, open]) {
      if (!reply.ok) expect(reply.error.message).not.toContain('Тайный');
    }
  });

  it('refuses program_order until the previous course of an ordered program is completed', async () => {
    const reply = await enrollAs('free@t', { course: 'second' });
    expect(reply).toEqual({
      ok: false,
      error: {
        code: 'program_order',
        message: expect.stringContaining('Цепочка'),
        program: 'chain',
        program_title: 'Цепочка',
        previous: { course: 'first', title: 'Курс first' },
      },
    });
    expect((await enrollAs('free@t', { course: 'first' })).ok).toBe(true);
    await svc.admin.recordProgress('free@t', 'first', 3, new Date().toISOString());
    expect((await enrollAs('free@t', { course: 'second' })).ok).toBe(true);
  });

  it('refuses space_not_available and organization_suspended for a named space', async () => {
    expect(await enrollAs('emp@t', { course: 'open', space: 'globex' })).toMatchObject({
      ok: false,
      error: { code: 'space_not_available', space: 'globex' },
    });
    expect(await enrollAs('emp@t', { course: 'frozen-course', space: 'frozen' })).toMatchObject({
      ok: false,
      error: { code: 'organization_suspended', space: 'frozen' },
    });
  });

  it('enrolls in the selected organization space: the organization is recorded, first_lesson is null without lessons', async () => {
    const reply = await enrollAs('emp@t', { course: 'empty' }, 'acme');
    expect(reply).toEqual({
      ok: true,
      data: { course: 'empty', title: 'Курс empty', space: 'acme', first_lesson: null },
    });
    const rows = await svc.admin.listEnrollments({ user: 'emp@t', course: 'empty' });
    expect(rows).toMatchObject([{ space: 'acme', organization: 'acme', self_enrolled: true, mandatory: null }]);
  });
});

describe('list_my_courses', () => {
  beforeAll(async () => {
    expect((await enrollAs('emp@t', { course: 'open' })).ok).toBe(true);
    await svc.admin.assignCourse('acme', 'emp@t', 'open', { mandatory: true, deadline: '2020-01-01T00:00:00Z' });
    await svc.admin.assignCourse('frozen', 'emp@t', 'frozen-course', { mandatory: false });
  });

  it('lists every course of the student in personal, except those of a suspended organization', async () => {
    const data = await myCourses('emp@t');
    expect(data.space).toBe('personal');
    expect(data.courses.map((c) => c.course).sort()).toEqual(['empty', 'open']);
    // Personal and an assignment of the same course: one entry, the assignment's fields.
    expect(data.courses.find((c) => c.course === 'open')).toEqual({
      course: 'open',
      title: 'Курс open',
      organization: 'acme',
      mandatory: true,
      deadline: '2020-01-01T00:00:00.000Z',
      overdue: true,
      lessons_total: 3,
      lessons_completed: 0,
      lessons_failed: 0,
      completed: false,
      finished: false,
      next_lesson: { id: 'open-l1', title: 'Урок 1' },
      programs: [],
    });
  });

  it('lists the organization space: its assignments and courses taken from its catalog, self-enrolled with empty assignment fields', async () => {
    const data = await myCourses('emp@t', 'acme');
    expect(data.space).toBe('acme');
    expect(data.courses.map((c) => c.course)).toEqual(['open', 'empty']);
    expect(data.courses[1]).toMatchObject({
      organization: 'acme',
      mandatory: null,
      deadline: null,
      overdue: false,
      lessons_total: 0,
      next_lesson: null,
    });
  });

  it('keeps the enrollment of a suspended organization and shows it again when it is reinstated', async () => {
    expect(await env.bus.request(list_my_courses, student('emp@t'), { space: 'frozen' })).toMatchObject({
      ok: false,
      error: { code: 'organization_suspended' },
    });
    await svc.admin.setSuspended('frozen', false);
    // The identity cache forgets the members when principal_changed arrives (a core NATS message,
    // handled after setSuspended returns), so the list shows the course again within a moment.
    await expect
      .poll(async () => (await myCourses('emp@t')).courses.map((c) => c.course).sort(), { timeout: 2000 })
      .toEqual(['empty', 'frozen-course', 'open']);
    await svc.admin.setSuspended('frozen', true);
  });

  it('shows programs, completion and the lock of an ordered program', async () => {
    const data = await myCourses('free@t');
    const first = data.courses.find((c) => c.course === 'first');
    expect(first).toMatchObject({ completed: true, lessons_completed: 3, next_lesson: null });
    expect(first).not.toHaveProperty('locked_by');
    expect(first?.programs).toEqual([
      {
        program: 'chain',
        title: 'Цепочка',
        position: 1,
        total: 2,
        ordered: true,
        previous: null,
        next: { course: 'second', title: 'Курс second' },
        member: true,
      },
    ]);
    // An enrollment made before the completion was undone: the lock shows on the later course.
    await svc.admin.recordProgress('free@t', 'first', 2, null);
    const again = await myCourses('free@t');
    expect(again.courses.find((c) => c.course === 'second')?.locked_by).toEqual({
      course: 'first',
      title: 'Курс first',
    });
  });

  it('refuses a space the student does not have', async () => {
    expect(await env.bus.request(list_my_courses, student('free@t'), { space: 'acme' })).toMatchObject({
      ok: false,
      error: { code: 'space_not_available', available: ['personal'] },
    });
  });
});
