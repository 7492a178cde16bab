import { connect, type NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import { type Bus, createBus } from './bus.ts';
import type { BaseConfig } from './config.ts';
import { type Database, migrate, openDatabase, PLATFORM_MIGRATIONS } from './db.ts';
import { type Check, createMetrics, startHealthServer } from './health.ts';
import { createLogger, type Logger } from './log.ts';

/** What a service's createApp receives. */
export interface ServiceDeps<DB> {
  bus: Bus;
  nc: NatsConnection;
  database: Database<DB>;
  log: Logger;
  config: BaseConfig;
  /** The process's Prometheus registry (served at /metrics with HEALTH_PORT); absent in tests that build apps directly. */
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
}

/**
 * Connects, migrates, starts the app and the health server, and stops everything in order on
 * SIGTERM/SIGINT: stop taking requests, drain NATS, end the pool.
 */
export async function runService<DB>(opts: RunOptions<DB>): Promise<void> {
  const log = createLogger(opts.name, opts.config.LOG_LEVEL);
  const nc = await connect({ servers: opts.config.NATS_URL, name: opts.name, maxReconnectAttempts: -1 });
  const database = openDatabase<DB>(opts.config.DATABASE_URL, opts.schema);
  await migrate(database.pool, opts.schema, [PLATFORM_MIGRATIONS, opts.migrations], log);
  const bus = createBus(nc, { prefix: opts.config.SUBJECT_PREFIX, timeoutMs: opts.config.REQUEST_TIMEOUT_MS, log });
  const metrics = createMetrics(opts.name);
  const app = await opts.createApp({ bus, nc, database, log, config: opts.config, metrics });
  const checks: Record<string, Check> = {
    nats: () => nc.flush(),
    postgres: () => database.pool.query('select 1'),
    ...opts.extraChecks,
  };
  const health = opts.config.HEALTH_PORT ? await startHealthServer(opts.config.HEALTH_PORT, checks, metrics) : null;
  log.info({ health: opts.config.HEALTH_PORT || null }, 'service started');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    health?.close();
    await app.stop();
    await nc.drain();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
