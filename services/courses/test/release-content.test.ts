import { create_course, releaseContent } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCourses } from '../../../test/support/courses.ts';
import { digestOf, sampleRelease } from './fixtures.ts';
import { call, publish, refusal } from './helpers.ts';

let env: TestEnv;
let courses: Awaited<ReturnType<typeof startCourses>>;

beforeAll(async () => {
  env = await createTestEnv('courses-release-content');
  courses = await startCourses(env);
});

afterAll(async () => {
  await courses?.close();
  await env?.cleanup();
});

describe('courses.release_content', () => {
  it('gives the active release, and an earlier one by id after a new release', async () => {
    const v1 = sampleRelease('content-a');
    const first = await publish(env, v1);
    const active = await call(env, releaseContent, { course: first.course }, null);
    expect(active).toMatchObject({ course: first.course, release: first.release, version: 1, active: true });
    expect(active.digest).toBe(digestOf(v1));
    expect(active.content).toEqual(v1);

    const v2 = structuredClone(v1);
    v2.chapters[0].lessons[0].title = 'Другое название';
    const second = await publish(env, v2);
    expect(second.version).toBe(2);
    const now = await call(env, releaseContent, { course: first.course }, null);
    expect(now).toMatchObject({ release: second.release, version: 2, active: true });
    const old = await call(env, releaseContent, { course: first.course, release: first.release }, null);
    expect(old).toMatchObject({ release: first.release, version: 1, active: false });
    expect(old.content).toEqual(v1);
  });

  it('refuses an unknown course, a course without release and a release of another course', async () => {
    expect(await refusal(env, releaseContent, { course: 'crs_0000000000000000' }, null)).toMatchObject({
      code: 'course_not_found',
    });
    const draft = await call(env, create_course, { title: 'Черновик', summary: 'Без релиза' });
    expect(await refusal(env, releaseContent, { course: draft.course }, null)).toMatchObject({
      code: 'course_not_released',
    });
    const other = await publish(env, sampleRelease('content-b'));
    expect(await refusal(env, releaseContent, { course: draft.course, release: other.release }, null)).toMatchObject({
      code: 'release_not_found',
      release: other.release,
    });
  });
});
