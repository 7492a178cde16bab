import { PERSONAL, type Principal } from '@studium/contracts';
import { createBus, migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import type { TestEnv } from '@studium/testing';
import { EnrollmentAdmin } from '../../src/admin.ts';
import { createApp, MIGRATIONS } from '../../src/app.ts';
import { EnrollmentConfig } from '../../src/config.ts';
import type { EnrollmentDb } from '../../src/db.ts';

/** The real enrollment service in this process, on the test's prefix, database and Redis; short mail backoff. */
export async function startEnrollmentService(env: TestEnv, overrides: Record<string, string> = {}) {
  const database = openDatabase<EnrollmentDb>(env.databaseUrl, 'enrollment', 6);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const config = EnrollmentConfig.parse({
    SUBJECT_PREFIX: env.prefix,
    REDIS_URL: env.redisUrl,
    MAIL_BACKOFF_MS: '100',
    MAIL_RELAY_INTERVAL_MS: '200',
    ...overrides,
  });
  const bus = createBus(env.nc, { prefix: env.prefix, timeoutMs: 3000, log: env.log });
  const app = await createApp({ bus, nc: env.nc, database, log: env.log, config });
  const admin = new EnrollmentAdmin(database.db, { nc: env.nc, prefix: env.prefix });
  return {
    app,
    database,
    db: database.db,
    admin,
    async close() {
      await app.stop();
      await database.close();
    },
  };
}

/** A student principal as the edge would send it. */
export function student(user: string, space: string = PERSONAL): Principal {
  return { user, full_name: user, roles: ['Student'], scope: 'write', space };
}
