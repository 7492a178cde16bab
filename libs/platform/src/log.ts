import { type Logger, pino } from 'pino';

export type { Logger };

/** One pino logger per process, with the service name on every line. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ name: service, level, base: { service } });
}
