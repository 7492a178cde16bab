import { createHash } from 'node:crypto';
import { type Principal, publish_course, publishRelease, type Release } from '@studium/contracts';
import { migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { eventually, type TestEnv } from '@studium/testing';
import { startCourses } from '../../../../test/support/courses.ts';
import { controlled, startEnrollment } from '../../../../test/support/stack.ts';
import { canonicalJson } from '../../../courses/src/domain/canonical.ts';
import { createApp, type HomeworkApp, MIGRATIONS } from '../../src/app.ts';
import { HomeworkConfig } from '../../src/config.ts';
import type { HomeworkDb } from '../../src/db.ts';
import { homeworkRelease } from './fixture.ts';

/** The real homework service in this process against the test's NATS prefix and database. */
export async function startHomework(env: TestEnv, overrides: Record<string, string> = {}) {
  const database = openDatabase<HomeworkDb>(env.databaseUrl, 'homework', 6);
  await migrate(database.pool, 'homework', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const { nc, bus } = await env.serviceBus('homework', { timeoutMs: 3000, log: env.log });
  const config = HomeworkConfig.parse({ SUBJECT_PREFIX: env.prefix, RELEASE_TTL_MS: '0', ...overrides });
  const start = () => createApp({ bus, nc, database, log: env.log, config });
  return Object.assign(await controlled<HomeworkApp>(start, database), { database, db: database.db, config });
}

/** A principal as the edge sends it. */
export function person(user: string, roles: string[] = ['Student'], space = 'personal'): Principal {
  return { user, full_name: user, roles, scope: 'write', space };
}

/** The curator of the test course. */
export const CURATOR = person('curator@hw', ['Course Creator']);

/**
 * Enrollment, courses and homework for one test file, with one published course: students
 * `anna@hw` (member of organization `acme`, the course assigned there) and `boris@hw` (not enrolled),
 * manager `mira@hw` of acme, curator `curator@hw` (leads the course) and `other@hw` (an author who does not).
 */
export async function startHomeworkStack(
  env: TestEnv,
  homeworkOverrides: Record<string, string> = {},
  /** Changes the fixture before it is published (e.g. gives a lesson a quiz). */
  edit: (release: Release) => void = () => {},
) {
  const enrollment = await startEnrollment(env);
  const courses = await startCourses(env);
  const homework = await startHomework(env, homeworkOverrides);
  const a = enrollment.admin;
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertOrganization('frozen', 'Заморозка');
  for (const [u, roles] of [
    ['anna@hw', ['Student']],
    ['boris@hw', ['Student']],
    ['mira@hw', ['Manager']],
    ['curator@hw', ['Course Creator']],
    ['other@hw', ['Course Creator']],
  ] as const) {
    await a.upsertUser(u, u, [...roles]);
  }
  await a.addMember('acme', 'anna@hw', 'member');
  await a.addMember('acme', 'mira@hw', 'manager');
  await a.addMember('frozen', 'anna@hw', 'member');
  const release: Release = homeworkRelease(`hw-${env.prefix}`, ['curator@hw']);
  edit(release);
  const published = await env.bus.request(publishRelease, null, {
    release: release as unknown as Record<string, unknown>,
    digest: createHash('sha256').update(canonicalJson(release)).digest('hex'),
    commit: null,
    publisher: 'curator@hw',
  });
  if (!published.ok) throw new Error(JSON.stringify(published.error));
  const course = published.data.course;
  const opened = await env.bus.request(publish_course, CURATOR, { course });
  if (!opened.ok) throw new Error(JSON.stringify(opened.error));
  await a.allowCourse('acme', course);
  await a.allowCourse('frozen', course);
  // The catalog reaches enrollment through the course-card events.
  await eventually(async () => {
    await a.assignCourse('acme', 'anna@hw', course, { mandatory: true });
  });
  await a.assignCourse('frozen', 'anna@hw', course, { mandatory: false });
  await a.setSuspended('frozen', true);
  const lesson = (key: string) => `${course}.${key}`;
  return {
    enrollment,
    courses,
    homework,
    course,
    release: published.data.release,
    /** The published course content (the fixture), e.g. for its quiz answers. */
    content: release,
    lesson,
    async close() {
      await homework.close();
      await courses.close();
      await enrollment.close();
    },
  };
}
