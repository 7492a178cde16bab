import {
  type BusTrust,
  checkFileUrlSecret,
  classifyPgError,
  connectNats,
  createBus,
  createLogger,
  exitOnRefusal,
  exitOnStartupFailure,
  loadConfig,
  migrate,
  natsOptions,
  onShutdown,
  openDatabase,
  retryStartup,
  setupTracing,
  stopTracing,
  trustFromEnv,
} from '@studium/platform';
import { Redis } from 'ioredis';
import { buildApp } from './app.ts';
import type { EdgeDb } from './audit.ts';
import { EdgeConfig, SCHEMA } from './config.ts';
import { loadWebAssets, type WebAssets } from './web/assets.ts';

const config = loadConfig(EdgeConfig);
// No default signing key outside development: refused before anything is opened.
await setupTracing('edge');
const log = createLogger('edge', config.LOG_LEVEL);
try {
  config.FILE_URL_SECRET = checkFileUrlSecret(config.FILE_URL_SECRET, config.STUDIUM_ENV);
} catch (err) {
  exitOnRefusal(err, log);
}
// The web pages' scripts and stylesheets are built, not bundled here: without them, no start.
let assets: WebAssets;
try {
  assets = loadWebAssets();
} catch (err) {
  exitOnStartupFailure('edge', log, err);
}
let trust: BusTrust;
try {
  trust = trustFromEnv(process.env, 'edge');
} catch (err) {
  exitOnRefusal(err, log);
}
try {
  // NATS and PostgreSQL not reachable yet are waited for; the edge listens once both answer.
  const nc = await connectNats(natsOptions(config, 'edge'), log);
  const database = openDatabase<EdgeDb>(config.DATABASE_URL, SCHEMA, {
    max: config.DB_POOL_MAX ?? 3,
    preparedStatements: config.DB_PREPARED_STATEMENTS,
  });
  await retryStartup(
    'postgres',
    () =>
      migrate(database.pool, SCHEMA, [new URL('../migrations', import.meta.url).pathname], log).catch((err) => {
        throw classifyPgError(err, config.DATABASE_URL);
      }),
    log,
  );
  // Producer-style client: fail fast instead of queueing commands while Redis is away.
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
  redis.on('error', (err) => log.debug({ err }, 'redis error'));
  const bus = createBus(nc, {
    prefix: config.SUBJECT_PREFIX,
    timeoutMs: config.REQUEST_TIMEOUT_MS,
    log,
    readAttemptTimeoutMs: config.READ_ATTEMPT_TIMEOUT_MS,
    trust,
    local: config.BUS_LOCAL,
  });
  const app = await buildApp({ bus, db: database.db, redis, log, config, assets });
  await app.listen({ host: config.HOST, port: config.PORT });
  // PORT 0 takes a free port: the line names the one taken (npm start and the tests read it).
  const { port } = app.server.address() as { port: number };
  log.info({ url: `http://${config.HOST}:${port}`, port }, 'edge listening');

  onShutdown(log, async () => {
    await app.close();
    await nc.drain();
    redis.disconnect();
    await database.close();
    await stopTracing();
  });
} catch (err) {
  exitOnStartupFailure('edge', log, err);
}
