import { z } from 'zod';

/**
 * A true/false setting from the environment ("true" or "false"). A boolean is taken too: services
 * parse an already parsed config again with their own schema.
 */
export const envFlag = (byDefault: boolean) =>
  z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).default(byDefault);

/** Settings every service reads: where NATS, PostgreSQL and Redis are, and the subject prefix. */
export const BaseConfig = z.object({
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** The process's NATS user (deployment: one per service, see docs/decisions.md "Trust model"). */
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  /** A token instead of user and password. */
  NATS_TOKEN: z.string().optional(),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/studium'),
  /**
   * A connection that bypasses the pooler, for what transaction pooling cannot carry: the outbox
   * relay's LISTEN. Unset: DATABASE_URL is used (right when it points at PostgreSQL itself).
   */
  DATABASE_DIRECT_URL: z.string().optional(),
  /** PostgreSQL connections of one process; unset: the service's default (see docs/operations.md). */
  DB_POOL_MAX: z.coerce.number().int().min(1).max(100).optional(),
  /**
   * Named (protocol-level) prepared statements. Set false behind PgBouncer older than 1.21 in
   * transaction mode, which cannot carry them; the statements then run unnamed.
   */
  DB_PREPARED_STATEMENTS: envFlag(true),
  /**
   * Requests between services served in the same process skip NATS (see `local` in bus.ts): for a
   * process that hosts several services, as the lesson-loop bench's BENCH_TOGETHER=n does.
   */
  BUS_LOCAL: envFlag(false),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /**
   * `development` (npm start, tests) lets the development stand-ins in: the edge key pair in
   * .studium/edge-keys.json, the development FILE_URL_SECRET. `production` refuses both (so does
   * NODE_ENV=production, which the image sets); unset, the file-URL key must be strong.
   */
  STUDIUM_ENV: z.enum(['development', 'production']).optional(),
  /** Prefix of every subject and stream name; lets tests and several deployments share one NATS. */
  SUBJECT_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/)
    .default('studium'),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Port of the small HTTP server with /healthz, /readyz and /metrics that non-HTTP services open;
   * 0 takes a free port (logged as `health`); unset: no server.
   */
  HEALTH_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  /**
   * How long a process may go without reaching what it needs (NATS, PostgreSQL, Redis: its
   * readiness checks), at start or later, before /healthz fails and the orchestrator restarts it.
   * k8s: the startupProbe's budget (2 s × 60).
   */
  STARTUP_BUDGET_MS: z.coerce.number().int().positive().default(120_000),
  /** Timeout of the first attempt of a read (idempotent) request; a second attempt gets the rest. */
  READ_ATTEMPT_TIMEOUT_MS: z.coerce.number().int().positive().default(1000),
  /** Requests one service process works on at once. */
  MAX_CONCURRENT_REQUESTS: z.coerce.number().int().positive().default(64),
  /** Requests that may wait for a slot beyond that (until their deadline); more are refused with 503. */
  MAX_QUEUED_REQUESTS: z.coerce.number().int().min(0).default(256),
  /** Deliveries of an event a consumer fails on before it is parked as a dead letter. */
  CONSUMER_MAX_ATTEMPTS: z.coerce.number().int().positive().default(5),
  /** Delay before redelivering an event a consumer failed on; doubles each attempt (up to a minute). */
  CONSUMER_RETRY_MS: z.coerce.number().int().positive().default(1000),
  /** Days published outbox rows, processed event ids, sent mail rows and replayed dead letters are kept. */
  RETENTION_DAYS: z.coerce.number().positive().default(30),
  /** How often the retention job runs; 0 disables it. */
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(0).default(3_600_000),
});
export type BaseConfig = z.infer<typeof BaseConfig>;

/** Parses the environment once against a schema; a bad value stops the process with every problem listed. */
export function loadConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
