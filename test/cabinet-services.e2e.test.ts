import {
  course_notes,
  course_testers,
  courseAccess,
  create_course,
  enroll,
  grant_tester,
  list_catalog,
  list_my_courses,
  publish_course,
  resolve_note,
  review_note,
  revoke_tester,
  TESTERS_MAX,
  write_note,
} from '@studium/contracts';
import { Failure } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curator, sampleRelease } from '../services/courses/test/fixtures.ts';
import { call, publish, refusal } from '../services/courses/test/helpers.ts';
import { startCourses } from './support/courses.ts';
import { startEnrollment } from './support/stack.ts';

// Issue 24, the service side of the author cabinet: the curator's notes and moves on them
// (courses), testers of a course not open yet (courses grants, enrollment honours).
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let courses: Awaited<ReturnType<typeof startCourses>>;
let course: string;

const person = (user: string, roles: string[]) => ({
  user,
  full_name: user,
  roles,
  scope: 'write' as const,
  space: 'personal',
});
const outsider = person('other@test', ['Course Creator']);
const tester = person('tess@test', ['Student']);
const stranger = person('sam@test', ['Student']);

beforeAll(async () => {
  env = await createTestEnv('cabinet-services');
  enrollment = await startEnrollment(env);
  courses = await startCourses(env);
  for (const p of [tester, stranger]) await enrollment.admin.upsertUser(p.user, p.user, p.roles);
  // Published by the pipeline but not opened: a draft with an active release.
  course = (await publish(env, sampleRelease('cabinet'))).course;
}, 60_000);

afterAll(async () => {
  await courses?.close();
  await enrollment?.close();
  await env?.cleanup();
});

const notes = async () => (await call(env, course_notes, { course, status: null })).notes;

describe('the curator’s notes from the cabinet', () => {
  it('a note on a goal item with a quote waits on the agent; reply, return and accept move the turn', async () => {
    const note = await call(env, write_note, {
      course,
      target: 'goal.l-1/term:T1',
      text: 'Добавьте пример из жизни',
      quote: 'Цель и позиция',
    });
    expect(note).toMatchObject({ target: 'goal.l-1/term:T1', lesson_key: 'l-1', status: 'open', waiting_on: 'agent' });
    expect((await notes()).find((n) => n.note === note.note)).toMatchObject({
      quote: 'Цель и позиция',
      author: curator.user,
      label: 'Пункт «Цель и позиция» урока «Цель разговора»',
    });
    // The agent's work done: waiting on the author; the curator returns it with an answer.
    await call(env, resolve_note, { note: note.note, comment: 'Добавил пример в версии 2' });
    const returned = await call(env, review_note, { note: note.note, action: 'return', text: 'Пример не тот' });
    expect(returned).toEqual({ note: note.note, status: 'open', waiting_on: 'agent', reply_count: 2 });
    const reopened = (await call(env, course_notes, { course })).notes.find((n) => n.note === note.note);
    expect(reopened?.replies.at(-1)).toMatchObject({ author: curator.user, text: 'Пример не тот' });
    const replied = await call(env, review_note, { note: note.note, action: 'reply', text: 'Возьмите закупку' });
    expect(replied).toMatchObject({ status: 'open', waiting_on: 'agent', reply_count: 3 });
    await call(env, resolve_note, { note: note.note, comment: 'Взял закупку' });
    const accepted = await call(env, review_note, { note: note.note, action: 'accept' });
    expect(accepted).toMatchObject({ status: 'accepted', waiting_on: null });
    // An accepted note takes no more moves: the refused move changes nothing.
    expect(await refusal(env, review_note, { note: note.note, action: 'return', text: 'ещё' })).toMatchObject({
      code: 'invalid_transition',
      status: 'accepted',
    });
    expect((await notes()).find((n) => n.note === note.note)).toMatchObject({ status: 'accepted', waiting_on: null });
  });

  it('refuses a return or reply without text, an unknown note, and every bad place (the spec’s codes)', async () => {
    const note = await call(env, write_note, { course, target: 'lesson.l-2', text: 'Сократите' });
    expect(await refusal(env, review_note, { note: note.note, action: 'return', text: '  ' })).toMatchObject({
      code: 'invalid_transition',
      where: 'text',
    });
    expect(await refusal(env, review_note, { note: note.note, action: 'reply' })).toMatchObject({
      code: 'invalid_transition',
    });
    expect((await notes()).find((n) => n.note === note.note)?.replies).toEqual([]);
    expect((await refusal(env, review_note, { note: 'note_nope', action: 'accept' })).code).toBe('note_not_found');
    expect((await refusal(env, write_note, { course, target: 'goal.l-1', text: 'x' })).code).toBe('invalid_target');
    expect((await refusal(env, write_note, { course, target: 'lesson.nope', text: 'x' })).code).toBe(
      'note_target_unknown',
    );
    expect((await refusal(env, write_note, { course, target: 'course', text: ' ' })).code).toBe('invalid_note');
    expect((await refusal(env, write_note, { course: 'course_nope', target: 'course', text: 'x' })).code).toBe(
      'course_not_found',
    );
    const bare = await call(env, create_course, { title: 'Без релиза', summary: 'Анонс' });
    expect((await refusal(env, write_note, { course: bare.course, target: 'course', text: 'x' })).code).toBe(
      'course_not_released',
    );
  });

  it('a student cannot write or review notes (403)', async () => {
    await expect(env.bus.request(write_note, stranger, { course, target: 'course', text: 'x' })).rejects.toThrow(
      Failure,
    );
    await expect(env.bus.request(review_note, stranger, { note: 'note_x', action: 'accept' })).rejects.toThrow(Failure);
  });
});

describe('testers of a course not open yet', () => {
  const access = () =>
    env.bus.request(courseAccess, tester, { user: tester.user, course, space: null, course_space: null });

  it('only the course’s instructors and staff grant them (403 otherwise)', async () => {
    const denied = env.bus.request(grant_tester, outsider, { course, user: tester.user });
    await expect(denied).rejects.toMatchObject({ status: 403 });
    expect((await call(env, course_testers, { course })).testers).toEqual([]);
    const staff = person('mod@test', ['Moderator']);
    expect((await call(env, course_testers, { course }, staff)).status).toBe('draft');
  });

  it('a tester enrolls and studies; a stranger cannot; revoking closes it; opening the course opens it', async () => {
    const refused = await env.bus.request(enroll, tester, { course });
    expect(refused.ok ? null : refused.error.code).toBe('course_not_published');
    expect(await call(env, grant_tester, { course, user: tester.user })).toEqual({
      course,
      status: 'draft',
      testers: [tester.user],
    });
    const catalog = async (who: typeof tester) => {
      const r = await env.bus.request(list_catalog, who, {});
      if (!r.ok) throw new Error(r.error.code);
      return r.data.courses.filter((c) => c.course === course);
    };
    // The grant reaches enrollment on the course card: the tester finds the course in the catalog,
    // marked as testing and open to enroll (no announcement to them); a stranger does not.
    await eventually(async () =>
      expect(await catalog(tester)).toEqual([expect.objectContaining({ upcoming: false, testing: true })]),
    );
    expect(await catalog(stranger)).toEqual([]);
    expect((await env.bus.request(enroll, tester, { course })).ok).toBe(true);
    expect((await access()).ok).toBe(true);
    expect(await catalog(tester)).toEqual([]);
    const mine = async () => {
      const r = await env.bus.request(list_my_courses, tester, {});
      if (!r.ok) throw new Error(r.error.code);
      return r.data.courses;
    };
    const listed = async () => (await mine()).map((c) => c.course);
    expect((await mine()).find((c) => c.course === course)).toMatchObject({ testing: true });
    const other = await env.bus.request(enroll, stranger, { course });
    expect(other.ok ? null : other.error.code).toBe('course_not_published');

    await call(env, revoke_tester, { course, user: tester.user });
    await eventually(async () => {
      const r = await access();
      expect(r.ok ? null : r.error.code).toBe('not_enrolled');
    });
    // Nor is the course in the revoked tester's list any more.
    expect(await listed()).not.toContain(course);
    await call(env, publish_course, { course });
    await eventually(async () => expect((await access()).ok).toBe(true));
    expect(await listed()).toContain(course);
    // Open to everyone now: no longer a tester's course.
    expect((await mine()).find((c) => c.course === course)?.testing).toBeUndefined();
  });

  it('refuses a login that is no platform user (user_not_found) before anything is written', async () => {
    const revision = () =>
      courses.database.db
        .selectFrom('courses')
        .select(['card_revision', 'testers', 'updated_at'])
        .where('id', '=', course)
        .executeTakeFirstOrThrow();
    const events = async () =>
      (await courses.database.pool.query('select count(*)::int as n from courses.outbox')).rows[0].n as number;
    const [before, eventsBefore] = [await revision(), await events()];
    const r = await refusal(env, grant_tester, { course, user: 'ghost@test' });
    expect(r).toMatchObject({ code: 'user_not_found', user: 'ghost@test' });
    expect(r.message).toContain('ghost@test');
    expect(await revision()).toEqual(before);
    expect(await events()).toBe(eventsBefore);
    // The course is checked first: an unknown course or an outsider learns nothing of the login.
    expect((await refusal(env, grant_tester, { course: 'course_nope', user: 'ghost@test' })).code).toBe(
      'course_not_found',
    );
    await expect(env.bus.request(grant_tester, outsider, { course, user: 'ghost@test' })).rejects.toMatchObject({
      status: 403,
    });
    // Revoking a login that is no user (a grant made before the check) still works.
    expect((await call(env, revoke_tester, { course, user: 'ghost@test' })).testers).toEqual(before.testers);
  });

  it(`refuses a tester past ${TESTERS_MAX} (too_many_testers) and a login that is not one`, async () => {
    const c = (await publish(env, sampleRelease('cabinet-many'))).course;
    for (const u of [...Array.from({ length: TESTERS_MAX }, (_, i) => `t${i}@test`), 'one-more@test']) {
      await enrollment.admin.upsertUser(u, u, ['Student']);
    }
    for (let i = 0; i < TESTERS_MAX; i++) await call(env, grant_tester, { course: c, user: `t${i}@test` });
    const r = await refusal(env, grant_tester, { course: c, user: 'one-more@test' });
    expect(r).toMatchObject({ code: 'too_many_testers', max: TESTERS_MAX });
    expect((await call(env, course_testers, { course: c })).testers).toHaveLength(TESTERS_MAX);
    // Granting twice is one grant; revoking a non-tester changes nothing.
    expect((await call(env, grant_tester, { course: c, user: 't0@test' })).testers).toHaveLength(TESTERS_MAX);
    expect((await call(env, revoke_tester, { course: c, user: 'nobody@test' })).testers).toHaveLength(TESTERS_MAX);
    expect((await refusal(env, course_testers, { course: 'course_nope' })).code).toBe('course_not_found');
    // The service re-checks the contract (the edge refuses it as invalid_arguments first).
    await expect(env.bus.request(grant_tester, curator, { course: c, user: 'not a login' })).rejects.toMatchObject({
      status: 417,
    });
  });
});
