import { type ConnectionOptions, connect, type NatsConnection } from 'nats';
import type { Logger } from './log.ts';

/** A start-up failure that waiting cannot fix (a malformed URL, a wrong password, no such database). */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** PostgreSQL error codes that mean the configuration is wrong, not that the server is still away. */
const PERMANENT_PG = new Map([
  ['28P01', 'password authentication failed'],
  ['28000', 'no access for this user'],
  ['3D000', 'database does not exist'],
]);

/** Turns an error of a first connection into a StartupError when retrying cannot help; else returns it. */
export function classifyPgError(err: unknown, url: string): unknown {
  const code = (err as { code?: string })?.code;
  const safe = redactUrl(url);
  if (code && PERMANENT_PG.has(code)) {
    return new StartupError(`DATABASE_URL ${safe}: ${(err as Error).message} (${code})`);
  }
  // A migration that PostgreSQL refused (not a connection lost midway: SQLSTATE classes 08, 53, 57)
  // fails the same way on every try: one clear line instead of waiting forever as "not reachable".
  if ((err as { migration?: boolean })?.migration && code && /^[0-9A-Z]{5}$/.test(code) && !/^(08|53|57)/.test(code)) {
    return new StartupError((err as Error).message);
  }
  if (code === 'ERR_INVALID_URL' || (err instanceof TypeError && /Invalid URL/i.test((err as Error).message))) {
    return new StartupError(`DATABASE_URL ${safe} is not a valid PostgreSQL URL`);
  }
  return err;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * Runs `attempt` until it succeeds, waiting between failures with backoff (full jitter, up to
 * `maxDelayMs`): a dependency that is not there yet at start (PostgreSQL, the pooler) is waited
 * for instead of ending the process. A {@link StartupError} is thrown at once.
 */
export async function retryStartup<T>(
  what: string,
  attempt: () => Promise<T>,
  log: Logger,
  opts: { firstDelayMs?: number; maxDelayMs?: number } = {},
): Promise<T> {
  const first = opts.firstDelayMs ?? 250;
  const max = opts.maxDelayMs ?? 10_000;
  for (let failures = 0; ; failures++) {
    try {
      const result = await attempt();
      if (failures) log.info({ attempts: failures + 1 }, `${what} reachable`);
      return result;
    } catch (err) {
      if (err instanceof StartupError) throw err;
      const delay = Math.round(Math.min(first * 2 ** failures, max) * (0.5 + Math.random() / 2));
      log.warn(
        { err: (err as Error).message, attempt: failures + 1, delayMs: delay },
        `${what} not reachable yet, waiting`,
      );
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/** Connects to NATS, waiting for the server as long as it takes (and reconnecting forever after). */
export function connectNats(options: ConnectionOptions, log: Logger): Promise<NatsConnection> {
  return retryStartup(
    'nats',
    () => connect({ maxReconnectAttempts: -1, ...options, waitOnFirstConnect: false, timeout: 5_000 }),
    log,
  );
}

/**
 * Ends a process whose start failed with one line on stderr (and in the log): a wrong
 * DATABASE_URL says so, instead of a stack trace.
 */
export function exitOnStartupFailure(name: string, log: Logger, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  log.fatal({ err: message }, 'start failed');
  process.stderr.write(`${name}: cannot start: ${message}\n`);
  process.exit(1);
}
