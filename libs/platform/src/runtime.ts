import { connect, type NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import { type Bus, createBus } from './bus.ts';
import type { BaseConfig } from './config.ts';
import { type Database, migrate, openDatabase, PLATFORM_MIGRATIONS } from './db.ts';
import { type Check, createMetrics, startHealthServer } from './health.ts';
import { createLogger, type Logger } from './log.ts';
import { natsOptions } from './nats-connect.ts';
import { PLATFORM_RETAINED, type RetainedTable, startRetention } from './retention.ts';
import { consumersReady } from './supervisor.ts';
import { setupTracing, stopTracing } from './tracing.ts';
import { exitOnRefusal, trustFromEnv } from './trust.ts';

/** What a service's createApp receives. */
export interface ServiceDeps<DB> {
  bus: Bus;
  nc: NatsConnection;
  database: Database<DB>;
  log: Logger;
  config: BaseConfig;
  /** The process's Prometheus registry (served on /metrics); pass it to consumers for their counters. */
  metrics?: Registry;
}

/** A started service. */
export interface App {
  stop(): Promise<void>;
}

export interface RunOptions<DB> {
  name: string;
  config: BaseConfig;
  /** Database schema of the service (one schema per service). */
  schema: string;
  /** The service's migrations directory; the platform's outbox migration is applied first. */
  migrations: string;
  createApp(deps: ServiceDeps<DB>): Promise<App>;
  extraChecks?: Record<string, Check>;
  /** The service's own tables the retention job trims besides the platform's (e.g. a sent-mail outbox). */
  retain?: RetainedTable[];
  /** PostgreSQL connections of the process (10). */
  poolSize?: number;
}

/**
 * Connects, migrates, starts the app, the retention job and the health server, and stops
 * everything in order on SIGTERM/SIGINT: stop taking requests and answer the ones taken (the app's
 * service stop), stop the relays and consumers (app), stop retention, drain NATS, end the pool.
 */
export async function runService<DB>(opts: RunOptions<DB>): Promise<void> {
  await setupTracing(opts.name);
  const log = createLogger(opts.name, opts.config.LOG_LEVEL);
  let trust: ReturnType<typeof trustFromEnv>;
  try {
    trust = trustFromEnv(process.env, 'service');
  } catch (err) {
    exitOnRefusal(err, log);
  }
  const nc = await connect(natsOptions(opts.config, opts.name));
  const database = openDatabase<DB>(opts.config.DATABASE_URL, opts.schema, opts.poolSize);
  await migrate(database.pool, opts.schema, [PLATFORM_MIGRATIONS, opts.migrations], log);
  const metrics = createMetrics(opts.name);
  const bus = createBus(nc, {
    prefix: opts.config.SUBJECT_PREFIX,
    timeoutMs: opts.config.REQUEST_TIMEOUT_MS,
    log,
    readAttemptTimeoutMs: opts.config.READ_ATTEMPT_TIMEOUT_MS,
    maxConcurrent: opts.config.MAX_CONCURRENT_REQUESTS,
    maxQueued: opts.config.MAX_QUEUED_REQUESTS,
    metrics,
    trust,
  });
  const app = await opts.createApp({ bus, nc, database, log, config: opts.config, metrics });
  const retention = opts.config.RETENTION_INTERVAL_MS
    ? startRetention({
        pool: database.pool,
        log,
        days: opts.config.RETENTION_DAYS,
        intervalMs: opts.config.RETENTION_INTERVAL_MS,
        tables: [...PLATFORM_RETAINED, ...(opts.retain ?? [])],
        metrics,
      })
    : null;
  const checks: Record<string, Check> = {
    nats: () => nc.flush(),
    postgres: () => database.pool.query('select 1'),
    consumers: consumersReady,
    ...opts.extraChecks,
  };
  const health = opts.config.HEALTH_PORT ? await startHealthServer(opts.config.HEALTH_PORT, checks, metrics) : null;
  log.info({ health: opts.config.HEALTH_PORT || null }, 'service started');

  onShutdown(log, async () => {
    health?.close();
    await app.stop();
    await retention?.stop();
    await nc.drain();
    await database.close();
    await stopTracing();
  });
}

/**
 * Stops the process on the first SIGTERM or SIGINT: logs the signal, runs `stop` (the process's
 * steps in order) and exits 0, or 1 when a step failed. `runService` stops through it, and so do
 * the processes that do not run on the bus (the edge, the mailer): one shutdown path for all.
 */
export function onShutdown(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    try {
      await stop();
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void handle('SIGTERM'));
  process.on('SIGINT', () => void handle('SIGINT'));
}
