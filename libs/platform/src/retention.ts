import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { Logger } from './log.ts';
import { platformMetrics } from './metrics.ts';
import { startPump } from './pump.ts';

/** A table whose rows are deleted once `column` (a timestamp, null while the row is live) is older than the retention. */
export interface RetainedTable {
  table: string;
  column: string;
}

/**
 * What the platform's own tables keep: published outbox rows, processed event ids and replayed
 * dead letters. Unpublished events and parked dead letters are never deleted.
 */
export const PLATFORM_RETAINED: RetainedTable[] = [
  { table: 'outbox', column: 'published_at' },
  { table: 'processed_events', column: 'processed_at' },
  { table: 'dead_letters', column: 'replayed_at' },
];

export interface RetentionOptions {
  /** A pool whose search_path is the service's schema. */
  pool: pg.Pool;
  log: Logger;
  /** Rows older than this many days are deleted. */
  days: number;
  intervalMs: number;
  tables: RetainedTable[];
  metrics?: Registry;
}

/** A running retention job. */
export interface Retention {
  /** Runs a pass now; resolves with the rows deleted per table. */
  run(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

const BATCH = 5000;

/**
 * Deletes rows older than `days` from each table, in batches (short transactions, no long lock on
 * a busy outbox). Returns the rows deleted per table.
 */
export async function purgeOld(pool: pg.Pool, tables: RetainedTable[], days: number): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const { table, column } of tables) {
    assertName(table);
    assertName(column);
    deleted[table] = 0;
    for (;;) {
      const { rowCount } = await pool.query(
        `delete from ${table} where ctid = any (array(select ctid from ${table}
           where ${column} < now() - make_interval(secs => $1) limit ${BATCH}))`,
        [days * 86_400],
      );
      deleted[table] += rowCount ?? 0;
      if ((rowCount ?? 0) < BATCH) break;
    }
  }
  return deleted;
}

/** Starts the periodic retention job of one schema (a pass at start, then every `intervalMs`). */
export function startRetention(opts: RetentionOptions): Retention {
  const metrics = opts.metrics ? platformMetrics(opts.metrics) : null;
  let last: Record<string, number> = {};
  const pass = async () => {
    last = await purgeOld(opts.pool, opts.tables, opts.days);
    const total = Object.values(last).reduce((a, b) => a + b, 0);
    for (const [table, n] of Object.entries(last)) metrics?.retentionDeleted.labels(table).inc(n);
    if (total) opts.log.info({ deleted: last, days: opts.days }, 'retention: old rows deleted');
    return total;
  };
  const pump = startPump(pass, { intervalMs: opts.intervalMs, log: opts.log, name: 'retention' });
  return {
    async run() {
      await pump.flush();
      return last;
    },
    stop: () => pump.stop(),
  };
}

function assertName(name: string): void {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a safe SQL identifier: ${name}`);
}
