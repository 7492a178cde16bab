import { type Logger, startPump } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { HomeworkDb } from './db.ts';
import type { FileStore } from './file-store.ts';

/**
 * Removes objects the edge staged for a save that never recorded them (the service crashed or
 * timed out between the edge's put and its answer). Only objects older than `minAgeMs` go, so a
 * save in progress keeps its bytes; a recorded file is never touched.
 */
export async function sweepOrphans(db: Kysely<HomeworkDb>, files: FileStore, minAgeMs: number): Promise<number> {
  const cutoff = Date.now() - minAgeMs;
  const old = (await files.list()).filter((o) => o.at <= cutoff).map((o) => o.name);
  if (old.length === 0) return 0;
  const kept = new Set<string>();
  for (let i = 0; i < old.length; i += 1000) {
    const rows = await db
      .selectFrom('files')
      .select('object')
      .where('object', 'in', old.slice(i, i + 1000))
      .execute();
    for (const r of rows) kept.add(r.object);
  }
  const orphans = old.filter((o) => !kept.has(o));
  await files.discard(orphans);
  return orphans.length;
}

/** Runs the sweep on an interval. */
export function startOrphanSweep(opts: {
  db: Kysely<HomeworkDb>;
  files: FileStore;
  log: Logger;
  intervalMs: number;
  minAgeMs: number;
}) {
  return startPump(
    async () => {
      const removed = await sweepOrphans(opts.db, opts.files, opts.minAgeMs);
      if (removed) opts.log.info({ removed }, 'homework files: orphan objects removed');
      return removed;
    },
    { intervalMs: opts.intervalMs, log: opts.log, name: 'homework orphan sweep' },
  );
}
