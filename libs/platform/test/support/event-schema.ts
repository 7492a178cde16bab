import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, migrate, openDatabase, PLATFORM_MIGRATIONS, streamNames } from '@studium/platform';
import type { TestEnv } from '@studium/testing';
import type { JetStreamManager } from 'nats';

/** The test schema: the platform's outbox and processed_events, plus a tally of applied effects. */
export interface EventDb {
  tally: { event_id: string; note: string };
}

/** Opens a schema of the test database with the platform migrations and a `tally` table. */
export async function openEventSchema(env: TestEnv, schema: string): Promise<Database<EventDb>> {
  const dir = await mkdtemp(join(tmpdir(), 'studium-events-'));
  try {
    // No unique key on purpose: applying an event twice shows up as two rows.
    await writeFile(join(dir, '0001_tally.sql'), 'create table tally (event_id text not null, note text not null);');
    const database = openDatabase<EventDb>(env.databaseUrl, schema, 5);
    await migrate(database.pool, schema, [PLATFORM_MIGRATIONS, dir]);
    return database;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** How many messages the prefix's events stream keeps on one subject (given without the prefix). */
export async function storedCount(jsm: JetStreamManager, prefix: string, subject: string): Promise<number> {
  const names = streamNames(prefix);
  const info = await jsm.streams.info(names.stream, { subjects_filter: names.subject(subject) });
  return info.state.subjects?.[names.subject(subject)] ?? 0;
}
