import { announce_course, create_course, list_courses, notify_when_released, publish_course } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCourses } from '../../../test/support/courses.ts';
import { startEnrollment } from '../../../test/support/stack.ts';
import { curator, sampleRelease, student } from './fixtures.ts';
import { call, publish, streamEvents } from './helpers.ts';

// publish_course of an announcement against the real enrollment service, which notifies the
// announcement's subscribers (enrollment.notify_subscribers) and learns of the announcement from
// courses' course_card_changed events.
let env: TestEnv;
let courses: Awaited<ReturnType<typeof startCourses>>;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;

beforeAll(async () => {
  env = await createTestEnv('courses-notify');
  courses = await startCourses(env);
  enrollment = await startEnrollment(env);
  await enrollment.admin.upsertUser(student.user, student.full_name, ['Student']);
  await enrollment.admin.upsertUser('second@test', 'Борис Второй', ['Student']);
});

afterAll(async () => {
  await enrollment?.close();
  await courses?.close();
  await env?.cleanup();
});

describe('publish_course of an announcement', () => {
  let course: string;

  it('notifies the subscribers once and opens the course', async () => {
    course = (await call(env, create_course, { title: 'Анонс с подпиской', summary: 'Скоро' })).course;
    await call(env, announce_course, { course, objectives: ['Подготовить разговор'] });
    // Enrollment learns of the announcement from the card event; then students can subscribe.
    for (const who of [student, { ...student, user: 'second@test' }]) {
      await eventually(async () => {
        const reply = await env.bus.request(notify_when_released, who, { course });
        expect(reply).toMatchObject({ ok: true });
      });
    }
    await publish(env, sampleRelease('announced'), { attach_to: course });
    const out = await call(env, publish_course, { course });
    expect(out).toMatchObject({ course, published: true, notified: 2 });
    const listed = (await call(env, list_courses, { published: true })).courses.find((c) => c.course === course);
    expect(listed).toMatchObject({ published: true, upcoming: false, course_key: 'announced' });
    const events = await eventually(async () => {
      const got = await streamEvents(env, 'evt.courses.course_published');
      expect(got).toHaveLength(1);
      return got;
    });
    expect(events[0].data).toMatchObject({ course, was_upcoming: true });
  });

  it('a second publish_course notifies nobody', async () => {
    expect(await call(env, publish_course, { course }, curator)).toMatchObject({ published: true, notified: 0 });
  });
});
