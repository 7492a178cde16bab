import { type DestinationStream, type Logger, pino } from 'pino';
import { traceFields } from './tracing.ts';

export type { Logger };

/**
 * One pino logger per process, with the service name on every line, and the trace and span id of
 * the call a line is written in (see {@link traceFields}).
 */
export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: DestinationStream,
): Logger {
  return pino({ name: service, level, base: { service }, mixin: traceFields }, destination);
}
