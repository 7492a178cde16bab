import { events, type LessonFailed, type LessonPassed, list_my_courses } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, publishEvents, seedCards } from './support/cards.ts';
import { startEnrollmentService, student } from './support/service.ts';

let env: TestEnv;
let svc: Awaited<ReturnType<typeof startEnrollmentService>>;
const LESSON_PASSED = events['lessons.lesson_passed'].subject;
const LESSON_FAILED = events['lessons.lesson_failed'].subject;

beforeAll(async () => {
  env = await createTestEnv('progress');
  svc = await startEnrollmentService(env);
  const a = svc.admin;
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertUser('emp@t', 'Сотрудник', ['Student']);
  await a.addMember('acme', 'emp@t', 'member');
  await seedCards(env, svc.db, [card('first'), card('second')]);
  for (const c of ['first', 'second']) await a.allowCourse('acme', c);
  await a.saveProgram('chain', 'Цепочка', true, ['first', 'second']);
  await a.addProgramMember('chain', 'emp@t');
  await a.assignCourse('acme', 'emp@t', 'first', { mandatory: true, deadline: '2020-01-01T00:00:00Z' });
});

afterAll(async () => {
  await svc?.close();
  await env?.cleanup();
});

function passed(n: number, at: string, completed = false): LessonPassed {
  return {
    user: 'emp@t',
    course: 'first',
    lesson: `first.l${n}`,
    lesson_key: `l${n}`,
    session: `ses_${n}`,
    space: 'acme',
    organization: 'acme',
    at,
    release: 'first-r1',
    version: 1,
    via: 'complete',
    late: true,
    lessons_passed: n,
    lessons_total: 3,
    course_completed: completed,
  };
}

async function course(name: string, space?: string, user = 'emp@t') {
  const reply = await env.bus.request(list_my_courses, student(user), space ? { space } : {});
  if (!reply.ok) throw new Error(reply.error.code);
  return reply.data.courses.find((c) => c.course === name);
}

describe('progress from lessons.lesson_passed', () => {
  it('counts passed lessons and the next lesson; an older report delivered late changes nothing', async () => {
    await publishEvents(env, LESSON_PASSED, [passed(2, '2026-01-02T00:00:00Z'), passed(1, '2026-01-01T00:00:00Z')]);
    await eventually(async () => {
      const { rows } = await sql<{ n: string }>`select count(*) as n from processed_events
        where consumer = 'enrollment-progress'`.execute(svc.db);
      expect(Number(rows[0].n)).toBe(2);
    });
    expect(await course('first', 'acme')).toMatchObject({ next_lesson: { id: 'first-l3' } });
  });

  it('completes the course, clears overdue and unlocks the next course of the ordered program', async () => {
    await publishEvents(env, LESSON_PASSED, [passed(3, '2026-01-03T00:00:00Z', true)]);
    await eventually(async () => {
      const first = await course('first', 'acme');
      expect(first).toMatchObject({ overdue: false, next_lesson: null });
    });
    const rows = await svc.admin.listEnrollments({ user: 'emp@t' });
    expect(rows[0]).toMatchObject({ lessons_done: 3 });
    expect(rows[0].completed_at).not.toBeNull();
  });

  it('gives a later enrollment of the same course the progress the student already has', async () => {
    await svc.admin.allowCourse('acme', 'first');
    await svc.admin.upsertOrganization('beta', 'Бета');
    await svc.admin.addMember('beta', 'emp@t', 'member');
    await svc.admin.allowCourse('beta', 'first');
    await svc.admin.assignCourse('beta', 'emp@t', 'first', {});
    const rows = await svc.admin.listEnrollments({ user: 'emp@t', org: 'beta' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ space: 'beta', lessons_done: 3 });
    expect(rows[0].completed_at).not.toBeNull();
  });
});

describe('progress from lessons.lesson_failed (a required quiz with no attempt left)', () => {
  const place = (user: string, key: string, at: string) => ({
    user,
    course: 'first',
    lesson: `first.${key}`,
    lesson_key: key,
    session: `ses_${user}_${key}`,
    space: 'acme',
    organization: 'acme',
    at,
    release: 'first-r1',
    version: 1,
  });

  it('skips the failed lesson in next_lesson; a course with only failed lessons left is finished and no longer locks', async () => {
    const a = svc.admin;
    await a.upsertUser('fail@t', 'Сотрудница', ['Student']);
    await a.addMember('acme', 'fail@t', 'member');
    await a.addProgramMember('chain', 'fail@t');
    await a.assignCourse('acme', 'fail@t', 'first', { mandatory: true, deadline: '2020-01-01T00:00:00Z' });
    await a.assignCourse('acme', 'fail@t', 'second', {});
    const failed: LessonFailed = {
      ...place('fail@t', 'l1', '2026-02-01T00:00:00Z'),
      attempts_used: 1,
      lessons_passed: 0,
      passed_lessons: [],
      failed_lessons: ['l1'],
      lessons_total: 3,
      course_finished: false,
    };
    await publishEvents(env, LESSON_FAILED, [failed]);
    await eventually(async () =>
      expect(await course('first', 'acme', 'fail@t')).toMatchObject({
        lessons_failed: 1,
        finished: false,
        next_lesson: { id: 'first-l2' },
      }),
    );
    expect(await course('second', 'acme', 'fail@t')).toMatchObject({ locked_by: { course: 'first' } });
    // The last open lesson passed: nothing is left to study, so the program goes on.
    const last = (key: string, n: number, at: string): LessonPassed => ({
      ...place('fail@t', key, at),
      via: 'complete',
      late: true,
      lessons_passed: n,
      passed_lessons: ['l2', 'l3'].slice(0, n),
      lessons_total: 3,
      course_completed: false,
      failed_lessons: ['l1'],
      course_finished: n === 2,
    });
    await publishEvents(env, LESSON_PASSED, [
      last('l2', 1, '2026-02-02T00:00:00Z'),
      last('l3', 2, '2026-02-03T00:00:00Z'),
    ]);
    await eventually(async () =>
      expect(await course('first', 'acme', 'fail@t')).toMatchObject({
        lessons_completed: 2,
        lessons_failed: 1,
        finished: true,
        completed: false,
        next_lesson: null,
        // Not passed by the deadline: still overdue for the organization.
        overdue: true,
      }),
    );
    expect((await course('second', 'acme', 'fail@t'))?.locked_by).toBeUndefined();
    const [row] = await a.listEnrollments({ user: 'fail@t', course: 'first' });
    expect(row?.completed_at).toBeNull();
  });
});
