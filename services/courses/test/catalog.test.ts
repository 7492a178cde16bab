import {
  announce_course,
  create_course,
  list_courses,
  publish_course,
  unpublish_course,
  update_course,
} from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCourses } from '../../../test/support/courses.ts';
import { curator, sampleRelease } from './fixtures.ts';
import { call, latestCard, publish, refusal, streamEvents } from './helpers.ts';

let env: TestEnv;
let courses: Awaited<ReturnType<typeof startCourses>>;

beforeAll(async () => {
  env = await createTestEnv('courses-catalog');
  courses = await startCourses(env);
});

afterAll(async () => {
  await courses?.close();
  await env?.cleanup();
});

describe('an announcement before the first release', () => {
  let course: string;

  it('create_course makes a draft whose creator is its instructor', async () => {
    const out = await call(env, create_course, { title: 'Переговоры', summary: 'Про сложный разговор' });
    expect(out).toMatchObject({ title: 'Переговоры', published: false });
    course = out.course;
    const row = await courses.database.db
      .selectFrom('courses')
      .select(['description', 'instructors', 'status'])
      .where('id', '=', course)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ description: 'Про сложный разговор', instructors: ['curator@test'], status: 'draft' });
  });

  it('update_course changes only the fields passed', async () => {
    const out = await call(env, update_course, { course, promise: 'План разговора к концу недели' });
    expect(out).toMatchObject({
      course,
      title: 'Переговоры',
      summary: 'Про сложный разговор',
      promise: 'План разговора к концу недели',
    });
    const again = await call(env, update_course, { course, summary: 'Для руководителей групп' });
    expect(again).toMatchObject({ summary: 'Для руководителей групп', promise: 'План разговора к концу недели' });
  });

  it('announce_course without goals set before: course_objectives_missing', async () => {
    const error = await refusal(env, announce_course, { course });
    expect(error).toMatchObject({ code: 'course_objectives_missing', course });
  });

  it('announce_course shows the course with its own goals, and keeps them when called without', async () => {
    const objectives = ['Подготовить разговор', 'Удержать рамку', 'Договориться о шаге'];
    expect(await call(env, announce_course, { course, objectives })).toEqual({
      course,
      published: true,
      upcoming: true,
      objectives,
    });
    expect((await call(env, announce_course, { course })).objectives).toEqual(objectives);
    const listed = (await call(env, list_courses, {})).courses.find((c) => c.course === course);
    expect(listed).toMatchObject({ published: true, upcoming: true, course_key: null, release: null, lessons: 0 });
  });

  it('publish_course of a course without release: course_not_released', async () => {
    expect((await refusal(env, publish_course, { course })).code).toBe('course_not_released');
  });

  it('sends the card and course_announced to JetStream', async () => {
    const card = await eventually(async () => {
      const c = await latestCard(env, course);
      expect(c?.status).toBe('upcoming');
      return c;
    });
    expect(card).toMatchObject({
      title: 'Переговоры',
      summary: 'Для руководителей групп',
      objectives: ['Подготовить разговор', 'Удержать рамку', 'Договориться о шаге'],
      release: null,
      lessons: [],
    });
    const announced = await streamEvents(env, 'evt.courses.course_announced');
    expect(announced.map((e) => e.data.course)).toEqual([course]);
  });

  it('a course imported with lessons but no release: course_has_content', async () => {
    const legacy = await call(env, create_course, { title: 'Старый курс', summary: 'Из прежней системы' });
    await courses.admin.setLegacyLessons(legacy.course, 4);
    expect((await refusal(env, update_course, { course: legacy.course, title: 'Новое' })).code).toBe(
      'course_has_content',
    );
    expect((await refusal(env, announce_course, { course: legacy.course, objectives: ['Цель'] })).code).toBe(
      'course_has_content',
    );
  });
});

describe('a course from a release', () => {
  let course: string;
  beforeAll(async () => {
    course = (await publish(env, sampleRelease('released'))).course;
  });

  it('update_course: course_from_release', async () => {
    expect((await refusal(env, update_course, { course, title: 'Другое' })).code).toBe('course_from_release');
  });

  it('announce_course with goals: course_from_release; without: chapter titles', async () => {
    expect((await refusal(env, announce_course, { course, objectives: ['Своя цель'] })).code).toBe(
      'course_from_release',
    );
    const out = await call(env, announce_course, { course });
    expect(out.objectives).toEqual(['Подготовить разговор', 'Договориться о следующем шаге']);
  });

  it('publish_course of an announcement opens it first; while enrollment cannot notify, the call fails (retry notifies)', async () => {
    await expect(env.bus.request(publish_course, null as never, { course })).rejects.toMatchObject({ status: 401 });
    await expect(env.bus.request(publish_course, curator, { course })).rejects.toMatchObject({ status: 503 });
    const listed = (await call(env, list_courses, {})).courses.find((c) => c.course === course);
    expect(listed).toMatchObject({ published: true, upcoming: false });
    // A course that was announced keeps asking enrollment on every publish_course, so it keeps failing here.
    await expect(env.bus.request(publish_course, curator, { course })).rejects.toMatchObject({ status: 503 });
  });

  it('publish_course of a draft opens it with the release warnings; again, it changes nothing', async () => {
    await call(env, unpublish_course, { course });
    const out = await call(env, publish_course, { course });
    expect(out).toMatchObject({ course, published: true, notified: 0 });
    expect(out.warnings).toEqual([expect.stringContaining('«q-2»')]);
    const again = await call(env, publish_course, { course });
    expect(again).toMatchObject({ published: true, notified: 0 });
    // One publication from the announcement (whose e-mail step failed above), one from the draft.
    const published = await eventually(async () => {
      const got = await streamEvents(env, 'evt.courses.course_published');
      expect(got).toHaveLength(2);
      return got;
    });
    expect(published[0].data).toMatchObject({ course, version: 1, was_upcoming: true });
    expect(published[1].data).toMatchObject({ course, version: 1, was_upcoming: false, by: 'curator@test' });
  });

  it('announce_course of an open course: course_already_published', async () => {
    expect((await refusal(env, announce_course, { course })).code).toBe('course_already_published');
  });

  it('list_courses filters by publication and shows the active release', async () => {
    const published = (await call(env, list_courses, { published: true })).courses;
    const row = published.find((c) => c.course === course);
    expect(row).toMatchObject({ published: true, upcoming: false, course_key: 'released', lessons: 3 });
    expect(row?.release).toMatchObject({ version: 1 });
    const drafts = (await call(env, list_courses, { published: false })).courses;
    expect(drafts.every((c) => !c.published)).toBe(true);
    expect(drafts.find((c) => c.course === course)).toBeUndefined();
  });

  it('the card carries the release, chapter titles as goals and lessons with stable ids', async () => {
    const card = await eventually(async () => {
      const c = await latestCard(env, course);
      expect(c?.status).toBe('published');
      return c;
    });
    expect(card).toMatchObject({ course_key: 'released', version: 1 });
    expect(card?.objectives).toEqual(['Подготовить разговор', 'Договориться о следующем шаге']);
    expect(card?.lessons).toEqual([
      { id: `${course}.l-1`, key: 'l-1', title: 'Цель разговора', chapter: 'Подготовить разговор' },
      { id: `${course}.l-2`, key: 'l-2', title: 'Рамка разговора', chapter: 'Подготовить разговор' },
      { id: `${course}.l-3`, key: 'l-3', title: 'Следующий шаг', chapter: 'Договориться о следующем шаге' },
    ]);
    const revisions = (await streamEvents(env, 'evt.courses.course_card_changed'))
      .filter((e) => e.data.course === course)
      .map((e) => e.data.revision as number);
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    expect(new Set(revisions).size).toBe(revisions.length);
  });

  it('unpublish_course removes it from the catalog', async () => {
    expect(await call(env, unpublish_course, { course })).toEqual({ course, published: false, upcoming: false });
    const row = (await call(env, list_courses, {})).courses.find((c) => c.course === course);
    expect(row).toMatchObject({ published: false, upcoming: false });
    await eventually(async () => {
      expect((await latestCard(env, course))?.status).toBe('draft');
      const got = await streamEvents(env, 'evt.courses.course_unpublished');
      expect(got.map((e) => e.data.course)).toContain(course);
    });
  });
});

describe('course_not_found', () => {
  it('is the refusal of every course tool for an unknown course', async () => {
    const course = 'crs_0000000000000000';
    expect((await refusal(env, update_course, { course })).code).toBe('course_not_found');
    expect((await refusal(env, announce_course, { course })).code).toBe('course_not_found');
    expect((await refusal(env, publish_course, { course })).code).toBe('course_not_found');
    expect((await refusal(env, unpublish_course, { course })).code).toBe('course_not_found');
  });
});
