import { createBus, migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import type { TestEnv } from '@studium/testing';
import { CoursesAdmin } from '../../services/courses/src/admin.ts';
import { MIGRATIONS as COURSES_MIGRATIONS, createApp as createCourses } from '../../services/courses/src/app.ts';
import type { CoursesDb } from '../../services/courses/src/db.ts';
import { controlled } from './stack.ts';

/** The real courses service (with its outbox relay), started in this process against the test's NATS prefix and database. */
export async function startCourses(env: TestEnv) {
  const database = openDatabase<CoursesDb>(env.databaseUrl, 'courses', 4);
  await migrate(database.pool, 'courses', [PLATFORM_MIGRATIONS, COURSES_MIGRATIONS]);
  const bus = createBus(env.nc, { prefix: env.prefix, timeoutMs: 3000, log: env.log });
  const start = () => createCourses({ bus, nc: env.nc, database, log: env.log, config: {} as never });
  const admin = new CoursesAdmin(database.db);
  return Object.assign(await controlled(start, database), { database, admin });
}
