import type { NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import { type Bus, createBus } from './bus.ts';
import type { BaseConfig } from './config.ts';
import { type Database, migrate, openDatabase, PLATFORM_MIGRATIONS } from './db.ts';
import { type Check, createMetrics, portOf, startHealthServer } from './health.ts';
import { createLogger, type Logger } from './log.ts';
import { natsOptions } from './nats-connect.ts';
import { PLATFORM_RETAINED, type RetainedTable, startRetention } from './retention.ts';
import { classifyPgError, connectNats, exitOnStartupFailure, retryStartup } from './startup.ts';
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
  /** What else the service needs to do its work, for /readyz (e.g. Redis for enrollment's mail relay). */
  checks?: Record<string, Check>;
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
  /** PostgreSQL connections of the process when DB_POOL_MAX is not set (default 5). */
  poolSize?: number;
}

/**
 * Connects, migrates, starts the app, the retention job and the health server, and stops
 * everything in order on SIGTERM/SIGINT: stop taking requests and answer the ones taken (the app's
 * service stop), stop the relays and consumers (app), stop retention, drain NATS, end the pool.
 * The health server comes first and answers not ready until the service runs: NATS and
 * PostgreSQL not reachable yet are waited for with backoff; a configuration that cannot work (a
 * wrong DATABASE_URL) ends the process with one line.
 */
export async function runService<DB>(opts: RunOptions<DB>): Promise<void> {
  await setupTracing(opts.name);
  const log = createLogger(opts.name, opts.config.LOG_LEVEL);
  let trust: ReturnType<typeof trustFromEnv>;
  try {
    trust = trustFromEnv(process.env, 'service', opts.name);
  } catch (err) {
    exitOnRefusal(err, log);
  }
  try {
    await startService(opts, log, trust);
  } catch (err) {
    exitOnStartupFailure(opts.name, log, err);
  }
}

async function startService<DB>(
  opts: RunOptions<DB>,
  log: ReturnType<typeof createLogger>,
  trust: ReturnType<typeof trustFromEnv>,
): Promise<void> {
  const metrics = createMetrics(opts.name);
  // Filled in once started; until then /readyz fails on `starting`.
  const checks: Record<string, Check> = { starting: () => Promise.reject(new Error('starting')) };
  const health = await openHealth(opts.config, checks, metrics, log);
  const nc = await connectNats(natsOptions(opts.config, opts.name), log);
  const database = openDatabase<DB>(opts.config.DATABASE_URL, opts.schema, {
    max: opts.config.DB_POOL_MAX ?? opts.poolSize ?? 5,
    directUrl: opts.config.DATABASE_DIRECT_URL,
    preparedStatements: opts.config.DB_PREPARED_STATEMENTS,
  });
  await retryStartup(
    'postgres',
    async () => {
      try {
        await migrate(database.pool, opts.schema, [PLATFORM_MIGRATIONS, opts.migrations], log);
      } catch (err) {
        throw classifyPgError(err, opts.config.DATABASE_URL);
      }
    },
    log,
  );
  const bus = createBus(nc, {
    prefix: opts.config.SUBJECT_PREFIX,
    timeoutMs: opts.config.REQUEST_TIMEOUT_MS,
    log,
    readAttemptTimeoutMs: opts.config.READ_ATTEMPT_TIMEOUT_MS,
    maxConcurrent: opts.config.MAX_CONCURRENT_REQUESTS,
    maxQueued: opts.config.MAX_QUEUED_REQUESTS,
    metrics,
    trust,
    local: opts.config.BUS_LOCAL,
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
  delete checks.starting;
  Object.assign(checks, {
    nats: () => nc.flush(),
    postgres: () => database.pool.query('select 1'),
    consumers: consumersReady,
    ...app.checks,
    ...opts.extraChecks,
  });
  log.info({ health: health ? portOf(health) : null }, 'service started');

  onShutdown(log, async () => {
    // Each step logged at debug: a stop that hangs names the step it hangs in.
    const step = async (name: string, fn: () => Promise<unknown> | unknown) => {
      log.debug({ step: name }, 'stopping step');
      await fn();
    };
    await step('health', () => health?.close());
    await step('app', () => app.stop());
    await step('retention', () => retention?.stop());
    await step('nats', () => nc.drain());
    await step('postgres', () => database.close());
    await step('tracing', () => stopTracing());
  });
}

/**
 * The health server of HEALTH_PORT (none when unset; 0 takes a free port), logged with its port at
 * once, so whoever started the process can probe it while it still waits for NATS or PostgreSQL.
 */
export async function openHealth(
  config: Pick<BaseConfig, 'HEALTH_PORT' | 'STARTUP_BUDGET_MS'>,
  checks: Record<string, Check>,
  metrics: Registry,
  log: Logger,
) {
  if (config.HEALTH_PORT === undefined) return null;
  const server = await startHealthServer(config.HEALTH_PORT, checks, metrics, { budgetMs: config.STARTUP_BUDGET_MS });
  log.info({ health: portOf(server) }, 'health listening');
  return server;
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
