import { course_release, course_releases, create_course, publishRelease, type Release } from '@studium/contracts';
import { Failure } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCourses } from '../../../test/support/courses.ts';
import { curator, digestOf, sampleRelease, student } from './fixtures.ts';
import { call, publish, refusal, streamEvents } from './helpers.ts';

let env: TestEnv;
let courses: Awaited<ReturnType<typeof startCourses>>;

beforeAll(async () => {
  env = await createTestEnv('courses-release');
  courses = await startCourses(env);
});

afterAll(async () => {
  await courses?.close();
  await env?.cleanup();
});

/** The sample release with lesson l-2 retitled, l-3 removed, a new l-4, and l-1's quiz changed. */
function edited(base: Release): Release {
  const r = structuredClone(base);
  const [prepare, agree] = r.chapters;
  prepare.lessons[1].title = 'Рамка разговора, вторая редакция';
  prepare.lessons[0].quiz!.questions[1].explanation = 'Позиция — способ, цель — результат.';
  agree.lessons = [{ ...agree.lessons[0], key: 'l-4', title: 'Договорённость' }];
  return r;
}

describe('publishRelease', () => {
  const v1 = sampleRelease('negotiations');
  let course: string;

  it('creates the course on the first release, with card and curators from the release and warnings', async () => {
    const out = await publish(env, v1, { commit: 'abc123' });
    expect(out).toMatchObject({ course_key: 'negotiations', version: 1, created: true });
    expect(out.course).toMatch(/^crs_[0-9a-f]{16}$/);
    expect(out.release).toMatch(/^rel_[0-9a-f]{16}$/);
    expect(out.warnings).toEqual([
      expect.objectContaining({ code: 'question_without_explanation', place: 'question.q-2' }),
    ]);
    course = out.course;
    const row = await courses.database.db
      .selectFrom('courses')
      .select(['title', 'summary', 'promise', 'instructors', 'status'])
      .where('id', '=', course)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      title: v1.course.title,
      summary: v1.course.summary,
      promise: v1.course.promise,
      instructors: ['curator@test', 'lead@test'],
      status: 'draft',
    });
  });

  it('gives no new version for the same digest', async () => {
    const again = await publish(env, v1, { commit: 'def456' });
    expect(again).toMatchObject({ course, version: 1, created: false });
  });

  it('publishes an edited release as the next version, which becomes active', async () => {
    const out = await publish(env, edited(v1), { commit: 'fed789' });
    expect(out).toMatchObject({ course, version: 2, created: true, warnings: [] });
    const { releases, title } = await call(env, course_releases, { course });
    // The history names its course by title, for the people who read it.
    expect(title).toBe(v1.course.title);
    expect(releases).toEqual([
      expect.objectContaining({ version: 2, commit: 'fed789', digest: digestOf(edited(v1)), active: true }),
      expect.objectContaining({ version: 1, commit: 'abc123', digest: digestOf(v1), active: false }),
    ]);
    expect(releases[0]).toMatchObject({ published_by: 'curator@test', document_key: 'plan' });
    const stored = await courses.database.db
      .selectFrom('releases')
      .select(['version', 'content'])
      .where('course', '=', course)
      .orderBy('version')
      .execute();
    // Releases are immutable: the retired version keeps its content.
    expect(stored.map((r) => [r.version, r.content === null])).toEqual([
      [1, false],
      [2, false],
    ]);
  });

  it('sends release_published with per-lesson changes to JetStream', async () => {
    const events = await eventually(async () => {
      const got = await streamEvents(env, 'evt.courses.release_published');
      expect(got).toHaveLength(2);
      return got;
    });
    expect(events[0].data).toMatchObject({ course, version: 1, first: true, commit: 'abc123' });
    expect(events[0].data.lessons).toMatchObject({ added: ['l-1', 'l-2', 'l-3'], removed: [], changed: [] });
    expect(events[1].data).toMatchObject({ course, version: 2, first: false, digest: digestOf(edited(v1)) });
    expect(events[1].data.lessons).toEqual({
      added: ['l-4'],
      removed: ['l-3'],
      changed: ['l-1', 'l-2'],
      unchanged: [],
      quiz_changed: ['l-1'],
    });
  });

  it('makes an older version active again when its file is published again', async () => {
    const out = await publish(env, v1);
    expect(out).toMatchObject({ course, version: 1, created: false });
    const { releases } = await call(env, course_releases, { course });
    expect(releases.map((r) => [r.version, r.active])).toEqual([
      [2, false],
      [1, true],
    ]);
    expect(releases[1].commit).toBe('abc123');
  });

  it('binds the first release to an announcement with attach_to', async () => {
    const draft = await call(env, create_course, { title: 'Анонс', summary: 'Скоро' });
    const out = await publish(env, sampleRelease('attached'), { attach_to: draft.course });
    expect(out).toMatchObject({ course: draft.course, course_key: 'attached', version: 1, created: true });
  });

  it('refuses attach_to a course that already has another key: course_key_taken', async () => {
    const error = await refusal(env, publishRelease, {
      release: sampleRelease('third') as never,
      digest: digestOf(sampleRelease('third')),
      commit: null,
      publisher: 'curator@test',
      attach_to: course,
    });
    expect(error).toMatchObject({ code: 'course_key_taken', course, course_key: 'third', current_key: 'negotiations' });
  });

  it('refuses attach_to a draft when another course holds the key: course_key_taken', async () => {
    const draft = await call(env, create_course, { title: 'Ещё анонс', summary: 'Скоро' });
    const error = await refusal(env, publishRelease, {
      release: v1 as never,
      digest: digestOf(v1),
      commit: null,
      publisher: 'curator@test',
      attach_to: draft.course,
    });
    expect(error).toMatchObject({ code: 'course_key_taken', holder: course });
  });

  it('refuses attach_to an unknown course: course_not_found', async () => {
    const error = await refusal(env, publishRelease, {
      release: v1 as never,
      digest: digestOf(v1),
      commit: null,
      publisher: 'curator@test',
      attach_to: 'crs_missing',
    });
    expect(error.code).toBe('course_not_found');
  });

  it('refuses content that fails the release schema or repeats keys: release_invalid', async () => {
    const broken = await refusal(env, publishRelease, {
      release: { format: 1, course: { key: 'x' } },
      digest: 'd',
      commit: null,
      publisher: 'curator@test',
    });
    expect(broken.code).toBe('release_invalid');
    const twice = structuredClone(v1);
    twice.chapters[1].lessons[0].key = 'l-1';
    const dup = await refusal(env, publishRelease, {
      release: twice as never,
      digest: digestOf(twice),
      commit: null,
      publisher: 'curator@test',
    });
    expect(dup).toMatchObject({ code: 'release_invalid', problems: ['lesson l-1: ключ повторяется'] });
  });
});

describe('course_release', () => {
  let course: string;
  beforeAll(async () => {
    course = (await publish(env, sampleRelease('viewed'))).course;
  });

  it('shows the card, chapters, lessons with quiz answers and the document', async () => {
    const out = await call(env, course_release, { course });
    expect(out.course).toMatchObject({ course, course_key: 'viewed', version: 1, published_by: 'curator@test' });
    expect(out.chapters?.map((c) => c.key)).toEqual(['prepare', 'agree']);
    expect(out.lessons?.map((l) => l.key)).toEqual(['l-1', 'l-2', 'l-3']);
    const l1 = out.lessons![0];
    expect(l1).toMatchObject({ chapter: 'prepare', pass_threshold: 0.5, blocks: [{ artifact: 'plan', key: 'goals' }] });
    expect(l1.questions[0]).toMatchObject({ key: 'q-1', correct: 'a' });
    expect(l1.questions[1].explanation).toBeNull();
    expect(l1.objectives[0].goals.map((g) => g.key)).toEqual(['term:T1', 'choice:C1']);
    expect(out.lessons![1].homework).toMatchObject({ answer_mode: 'text', due: '7 дней после закрытия урока' });
    expect(out.document?.blocks.map((b) => b.key)).toEqual(['goals', 'next']);
    expect(out).not.toHaveProperty('agent');
  });

  it('with lesson: only that lesson and the agent package', async () => {
    const out = await call(env, course_release, { course, lesson: 'l-1' });
    expect(out.lesson?.key).toBe('l-1');
    expect(out).not.toHaveProperty('lessons');
    const agent = out.agent as { frame: string; learn_about_student: unknown[]; lesson: Record<string, unknown> };
    expect(agent.frame).toContain('руководителей');
    expect(agent.learn_about_student).toHaveLength(1);
    expect(agent.lesson).toMatchObject({
      directive: 'Начни с истории ученика.',
      section_hints: { goals: 'Запиши одну-две цели.' },
    });
    expect(JSON.stringify(agent.lesson)).toContain('Разведи цель и позицию.');
  });

  it('refuses a lesson the release does not have: lesson_not_in_release', async () => {
    const error = await refusal(env, course_release, { course, lesson: 'l-9' });
    expect(error).toMatchObject({ code: 'lesson_not_in_release', course, lesson_key: 'l-9' });
    expect(error.release).toMatch(/^rel_/);
  });

  it('refuses a course without release: course_not_released', async () => {
    const draft = await call(env, create_course, { title: 'Черновик', summary: 'Без релиза' });
    expect((await refusal(env, course_release, { course: draft.course })).code).toBe('course_not_released');
  });

  it('refuses an unknown course: course_not_found', async () => {
    expect((await refusal(env, course_release, { course: 'crs_nope' })).code).toBe('course_not_found');
    expect((await refusal(env, course_releases, { course: 'crs_nope' })).code).toBe('course_not_found');
  });

  it('course_releases of a course without release is empty', async () => {
    const draft = await call(env, create_course, { title: 'Пусто', summary: 'Без релиза' });
    expect(await call(env, course_releases, { course: draft.course })).toEqual({ title: 'Пусто', releases: [] });
  });

  it('fails with 403 for a caller without an author role (quiz answers stay with authors)', async () => {
    await expect(env.bus.request(course_release, student, { course })).rejects.toMatchObject({ status: 403 });
    await expect(env.bus.request(course_release, student, { course })).rejects.toBeInstanceOf(Failure);
    expect((await env.bus.request(course_release, curator, { course })).ok).toBe(true);
  });
});
