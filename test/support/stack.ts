import type { AddressInfo } from 'node:net';
import {
  type App,
  createBus,
  type Logger,
  migrate,
  openDatabase,
  PLATFORM_MIGRATIONS,
  principalSigner,
} from '@studium/platform';
import { EDGE_TRUST, type TestEnv } from '@studium/testing';
import { Redis } from 'ioredis';
import { buildApp } from '../../services/edge/src/app.ts';
import type { EdgeDb } from '../../services/edge/src/audit.ts';
import { EdgeConfig } from '../../services/edge/src/config.ts';
import { EnrollmentAdmin } from '../../services/enrollment/src/admin.ts';
import {
  createApp as createEnrollment,
  MIGRATIONS as ENROLLMENT_MIGRATIONS,
  type EnrollmentApp,
} from '../../services/enrollment/src/app.ts';
import { EnrollmentConfig } from '../../services/enrollment/src/config.ts';
import type { EnrollmentDb } from '../../services/enrollment/src/db.ts';

const EDGE_MIGRATIONS = new URL('../../services/edge/migrations', import.meta.url).pathname;

/**
 * A service app started in this process that a test can stop ("down": no answers on the bus, no
 * relays) and restart against the same database.
 */
export async function controlled<A extends App>(start: () => Promise<A>, database: { close(): Promise<void> }) {
  let app: A | null = await start();
  return {
    /** The running app; throws while stopped. */
    get app(): A {
      if (!app) throw new Error('the service is stopped');
      return app;
    },
    async stop() {
      await app?.stop();
      app = null;
    },
    async restart() {
      if (!app) app = await start();
    },
    async close() {
      await app?.stop();
      app = null;
      await database.close();
    },
  };
}

/**
 * The real enrollment service, started in this process against the test's NATS prefix, database
 * and Redis (short mail backoff); `overrides` change its configuration.
 */
export async function startEnrollment(env: TestEnv, overrides: Record<string, string> = {}) {
  const database = openDatabase<EnrollmentDb>(env.databaseUrl, 'enrollment', 6);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, ENROLLMENT_MIGRATIONS]);
  const { nc, bus } = await env.serviceBus('enrollment', { timeoutMs: 3000, log: env.log });
  const config = EnrollmentConfig.parse({
    SUBJECT_PREFIX: env.prefix,
    REDIS_URL: env.redisUrl,
    MAIL_BACKOFF_MS: '100',
    MAIL_RELAY_INTERVAL_MS: '200',
    ...overrides,
  });
  const start = () => createEnrollment({ bus, nc, database, log: env.log, config });
  const admin = new EnrollmentAdmin(database.db, { nc, prefix: env.prefix });
  return Object.assign(await controlled<EnrollmentApp>(start, database), { database, db: database.db, admin });
}

/**
 * The real edge on a random local port (`log` replaces the test's logger, to read what it writes),
 * signing principals with the test's edge key (or `overrides.EDGE_SIGNING_KEY`).
 */
export async function startEdge(env: TestEnv, overrides: Record<string, string> = {}, log: Logger = env.log) {
  const config = EdgeConfig.parse({
    SUBJECT_PREFIX: env.prefix,
    REQUEST_TIMEOUT_MS: '1500',
    PORT: '0',
    AUTH_CACHE_TTL_MS: '30000',
    ...overrides,
  });
  const database = openDatabase<EdgeDb>(env.databaseUrl, 'edge', 2);
  await migrate(database.pool, 'edge', [EDGE_MIGRATIONS]);
  const redis = new Redis(env.redisUrl, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  // The edge's own connection as its NATS user.
  const bus = createBus(await env.connectAs('edge'), {
    prefix: env.prefix,
    timeoutMs: config.REQUEST_TIMEOUT_MS,
    log: env.log,
    readAttemptTimeoutMs: config.READ_ATTEMPT_TIMEOUT_MS,
    // An override of the key plays an edge whose key the services do not know.
    trust: overrides.EDGE_SIGNING_KEY
      ? { signer: principalSigner(overrides.EDGE_SIGNING_KEY), replyVerifier: EDGE_TRUST.replyVerifier }
      : EDGE_TRUST,
  });
  const app = await buildApp({ bus, db: database.db, redis, log, config });
  try {
    await app.listen({ host: '127.0.0.1', port: config.PORT });
  } catch (err) {
    // A port taken meanwhile (EADDRINUSE): let go of everything before the caller tries another.
    await app.close();
    redis.disconnect();
    await database.close();
    throw err;
  }
  const port = (app.server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    bus,
    database,
    redis,
    async close() {
      await app.close();
      redis.disconnect();
      await database.close();
    },
  };
}
