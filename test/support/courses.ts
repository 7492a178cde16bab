import { announce_course, create_course, type Principal, publish_course, type Release } from '@studium/contracts';
import { migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { eventually, type TestEnv } from '@studium/testing';
import type { Kysely } from 'kysely';
import { CoursesAdmin } from '../../services/courses/src/admin.ts';
import { MIGRATIONS as COURSES_MIGRATIONS, createApp as createCourses } from '../../services/courses/src/app.ts';
import type { CoursesDb } from '../../services/courses/src/db.ts';
import { curator as COURSES_CURATOR } from '../../services/courses/test/fixtures.ts';
import { call, publish } from '../../services/courses/test/helpers.ts';
import type { EnrollmentDb } from '../../services/enrollment/src/db.ts';
import { controlled } from './stack.ts';

/** The real courses service (with its outbox relay), started in this process against the test's NATS prefix and database. */
export async function startCourses(env: TestEnv) {
  const database = openDatabase<CoursesDb>(env.databaseUrl, 'courses', 4);
  await migrate(database.pool, 'courses', [PLATFORM_MIGRATIONS, COURSES_MIGRATIONS]);
  const { nc, bus } = await env.serviceBus('courses', { timeoutMs: 3000, log: env.log });
  const start = () => createCourses({ bus, nc, database, log: env.log, config: {} as never });
  const admin = new CoursesAdmin(database.db);
  return Object.assign(await controlled(start, database), { database, admin });
}

/** Waits until enrollment's catalog has the course's card in this status (cards travel on the events stream). */
export async function inCatalog(
  catalog: Kysely<EnrollmentDb>,
  course: string,
  status: 'upcoming' | 'published',
): Promise<void> {
  await eventually(async () => {
    const row = await catalog.selectFrom('catalog').select('status').where('course', '=', course).executeTakeFirst();
    if (row?.status !== status) throw new Error(`course ${course} is not ${status} in the catalog yet`);
  });
}

/**
 * Publishes a release of a new course as the pipeline CLI does and opens it (publish_course, by a
 * curator of the release); returns the course id once enrollment's catalog has its card.
 */
export async function openCourse(
  env: TestEnv,
  catalog: Kysely<EnrollmentDb>,
  release: Release,
  by: Principal = COURSES_CURATOR,
): Promise<string> {
  const { course } = await publish(env, release);
  await call(env, publish_course, { course }, by);
  await inCatalog(catalog, course, 'published');
  return course;
}

/** Creates and announces an upcoming course as its curator does; returns its id once it is in enrollment's catalog. */
export async function announceCourse(
  env: TestEnv,
  catalog: Kysely<EnrollmentDb>,
  course: { title: string; summary: string; objectives: string[] },
): Promise<string> {
  const { course: id } = await call(env, create_course, { title: course.title, summary: course.summary });
  await call(env, announce_course, { course: id, objectives: course.objectives });
  await inCatalog(catalog, id, 'upcoming');
  return id;
}
