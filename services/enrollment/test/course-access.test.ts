import {
  ACCESS_CHANGED,
  AccessChanged,
  courseAccess,
  courseAccessFromDoc,
  enroll,
  myEnrollments,
} from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, seedCards } from './support/cards.ts';
import { startEnrollmentService, student } from './support/service.ts';

let env: TestEnv;
let svc: Awaited<ReturnType<typeof startEnrollmentService>>;

beforeAll(async () => {
  env = await createTestEnv('course-access');
  svc = await startEnrollmentService(env);
  const a = svc.admin;
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertOrganization('frozen', 'Заморозка');
  await a.upsertUser('emp@t', 'Сотрудник', ['Student']);
  await a.upsertUser('solo@t', 'Одиночка', ['Student']);
  await a.addMember('acme', 'emp@t', 'member');
  await a.addMember('frozen', 'emp@t', 'member');
  await seedCards(env, svc.db, [card('own'), card('assigned'), card('cold'), card('first'), card('second')]);
  for (const c of ['own', 'assigned', 'first', 'second']) await a.allowCourse('acme', c);
  await a.allowCourse('frozen', 'cold');
  await a.assignCourse('acme', 'emp@t', 'assigned', { mandatory: true, deadline: '2020-01-01T00:00:00Z' });
  await a.assignCourse('frozen', 'emp@t', 'cold', { mandatory: false });
  await a.assignCourse('acme', 'emp@t', 'first', {});
  await a.assignCourse('acme', 'emp@t', 'second', {});
  await a.saveProgram('chain', 'Цепочка', true, ['first', 'second']);
  await a.addProgramMember('chain', 'emp@t');
  await a.setSuspended('frozen', true);
  const enrolled = await env.bus.request(enroll, student('emp@t'), { course: 'own' });
  expect(enrolled.ok).toBe(true);
});

afterAll(async () => {
  await svc?.close();
  await env?.cleanup();
});

const access = (args: { user?: string; course: string; space?: string | null; course_space?: string | null }) =>
  env.bus.request(courseAccess, student(args.user ?? 'emp@t'), {
    user: args.user ?? 'emp@t',
    course: args.course,
    space: args.space ?? null,
    course_space: args.course_space ?? null,
  });

describe('enrollment.course_access', () => {
  it("answers only inside the student's own call: 401 without a signed principal, 403 for another user", async () => {
    const args = { user: 'emp@t', course: 'assigned', space: null, course_space: null };
    await expect(env.bus.request(courseAccess, null, args)).rejects.toMatchObject({ status: 401 });
    await expect(env.bus.request(courseAccess, student('other@t'), args)).rejects.toMatchObject({ status: 403 });
    expect(await env.bus.request(courseAccess, student('emp@t'), args)).toMatchObject({ ok: true });
    const mine = { user: 'emp@t', space: null };
    await expect(env.bus.request(myEnrollments, null, mine)).rejects.toMatchObject({ status: 401 });
    await expect(env.bus.request(myEnrollments, student('other@t'), mine)).rejects.toMatchObject({ status: 403 });
  });

  it("studies an organization's assignment in its space while personal is selected, with deadline and overdue", async () => {
    const reply = await access({ course: 'assigned' });
    expect(reply).toEqual({
      ok: true,
      data: {
        space: 'acme',
        organization: 'acme',
        mandatory: true,
        deadline: '2020-01-01T00:00:00.000Z',
        overdue: true,
        self_enrolled: false,
        program_previous: null,
        programs: [],
      },
    });
  });

  it('keeps a started lesson in its space, and the personal space named explicitly', async () => {
    expect(await access({ course: 'assigned', course_space: 'personal' })).toMatchObject({
      ok: true,
      data: { space: 'personal', organization: null, mandatory: true },
    });
    expect(await access({ course: 'assigned', space: 'personal' })).toMatchObject({
      ok: true,
      data: { space: 'personal' },
    });
  });

  it('refuses space_not_available for a space the student does not have', async () => {
    expect(await access({ course: 'assigned', space: 'nowhere' })).toMatchObject({
      ok: false,
      error: { code: 'space_not_available', space: 'nowhere', available: ['personal', 'acme'] },
    });
  });

  it('refuses organization_suspended for a named suspended space, a started lesson there and its only enrollment', async () => {
    for (const args of [
      { course: 'assigned', space: 'frozen' },
      { course: 'cold', course_space: 'frozen' },
      { course: 'cold' },
      // A named space without the course, the course only in a suspended organization (fill_document without space).
      { course: 'cold', space: 'personal' },
    ]) {
      expect(await access(args)).toMatchObject({
        ok: false,
        error: { code: 'organization_suspended', organization: 'frozen' },
      });
    }
  });

  it('refuses course_not_in_space when a named organization space lacks the course; available names personal too', async () => {
    await svc.admin.upsertOrganization('beta', 'Бета');
    await svc.admin.addMember('beta', 'emp@t', 'member');
    expect(await access({ course: 'assigned', space: 'beta' })).toMatchObject({
      ok: false,
      error: { code: 'course_not_in_space', course: 'assigned', space: 'beta', available: ['acme', 'personal'] },
    });
  });

  it('studies a self-enrollment in the personal space', async () => {
    expect(await access({ course: 'own' })).toMatchObject({
      ok: true,
      data: { space: 'personal', organization: null, mandatory: false, self_enrolled: true, deadline: null },
    });
  });

  it('refuses not_enrolled without any enrollment in the course', async () => {
    expect(await access({ user: 'solo@t', course: 'own' })).toMatchObject({
      ok: false,
      error: { code: 'not_enrolled', course: 'own' },
    });
    expect(await access({ user: 'solo@t', course: 'own', space: 'personal' })).toMatchObject({
      ok: false,
      error: { code: 'not_enrolled' },
    });
  });

  it('names the course an ordered program holds back until it is completed', async () => {
    expect(await access({ course: 'second' })).toMatchObject({
      ok: true,
      data: {
        program_previous: { program: 'chain', course: 'first', title: 'Курс first' },
        // The programs as the course lists show them come with the check (course_outline's).
        programs: [{ program: 'chain', position: 2, ordered: true, previous: { course: 'first' }, next: null }],
      },
    });
    expect(await access({ course: 'first' })).toMatchObject({ ok: true, data: { program_previous: null } });
    await svc.admin.recordProgress('emp@t', 'first', 3, new Date().toISOString());
    expect(await access({ course: 'second' })).toMatchObject({ ok: true, data: { program_previous: null } });
  });
});

describe('enrollment.my_enrollments', () => {
  it('lists the enrollments of the selected space (personal counts active organizations) and of a named one', async () => {
    const personal = await env.bus.request(myEnrollments, student('emp@t'), { user: 'emp@t', space: null });
    expect(personal.ok && personal.data.space).toBe('personal');
    expect(personal.ok && personal.data.enrollments.map((e) => e.course).sort()).toEqual([
      'assigned',
      'first',
      'own',
      'second',
    ]);
    const assigned = personal.ok ? personal.data.enrollments.find((e) => e.course === 'assigned') : undefined;
    expect(assigned).toMatchObject({ space: 'acme', organization: 'acme', mandatory: true, overdue: true });
    expect(await env.bus.request(myEnrollments, student('emp@t'), { user: 'emp@t', space: 'frozen' })).toMatchObject({
      ok: false,
      error: { code: 'organization_suspended' },
    });
  });
});

describe('enrollment.access_changed', () => {
  /** The newest access document of the user in the outbox (what a projection keeps). */
  async function latestDoc(user: string) {
    const { rows } = await sql<{ data: unknown }>`select payload -> 'data' as data from outbox
      where subject = ${ACCESS_CHANGED} and payload -> 'data' ->> 'user' = ${user}
      order by (payload -> 'data' ->> 'version')::bigint desc limit 1`.execute(svc.db);
    return AccessChanged.parse(rows[0]?.data);
  }

  it('carries what course_access reads: the projection decides every case alike', async () => {
    const doc = await latestDoc('emp@t');
    const cases: Array<{ course: string; space: string | null; course_space: string | null }> = [];
    for (const course of ['own', 'assigned', 'cold', 'first', 'second', 'nope'])
      for (const space of [null, 'personal', 'acme', 'frozen', 'elsewhere'])
        for (const course_space of [null, 'personal', 'acme', 'frozen']) cases.push({ course, space, course_space });
    for (const q of cases) {
      const local = courseAccessFromDoc(doc, q, Date.now());
      expect({ q, local }).toEqual({ q, local: await access(q) });
    }
  });

  it('follows a suspension and a removed membership with a newer document', async () => {
    const before = await latestDoc('emp@t');
    await svc.admin.setSuspended('frozen', false);
    const resumed = await latestDoc('emp@t');
    expect(resumed.version).toBeGreaterThan(before.version);
    expect(courseAccessFromDoc(resumed, { course: 'cold', space: null, course_space: null }, Date.now())).toMatchObject(
      {
        ok: true,
        data: { space: 'frozen' },
      },
    );
    await svc.admin.setSuspended('frozen', true);
    expect(
      courseAccessFromDoc(await latestDoc('emp@t'), { course: 'cold', space: null, course_space: null }, Date.now()),
    ).toMatchObject({ ok: false, error: { code: 'organization_suspended' } });
  });
});
