import { events } from '@studium/contracts';
import {
  type BatchReport,
  type Database,
  migrate,
  openDatabase,
  PLATFORM_MIGRATIONS,
  streamNames,
} from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../../../test/support/process.ts';
import { publishEvents } from '../../enrollment/test/support/cards.ts';
import { MIGRATIONS } from '../src/app.ts';
import { SCHEMA } from '../src/config.ts';
import type { ReportingDb } from '../src/db.ts';
import { currentGeneration, ensureGeneration } from '../src/generation.ts';
import { type LiveConsumer, REPORTING_CONSUMER, startLiveConsumer } from '../src/live-consumer.ts';

// Reporting's live consumer in a process SIGKILLed in the middle of a batch: inside its
// transaction (before COMMIT) and after its COMMIT (before the acks). A consumer on the same
// durable then takes the redeliveries. The read models' writes are upserts, which a second
// application would not show, so the check is on what each consumer applied (the batch reports):
// every event exactly once over both, and all of them in the read model.
const USER = events['enrollment.user_created'].subject;
const EVENTS = 20;
let env: TestEnv;
let database: Database<ReportingDb>;
const children: ServiceProcess[] = [];

beforeAll(async () => {
  env = await createTestEnv('reporting-crash');
  database = openDatabase<ReportingDb>(env.databaseUrl, SCHEMA, 3);
  await migrate(database.pool, SCHEMA, [PLATFORM_MIGRATIONS, MIGRATIONS]);
  await ensureGeneration(database.db, database.pool);
}, 60_000);

afterAll(async () => {
  for (const c of children) await c.kill();
  await database?.close();
  await env?.cleanup();
});

async function users(): Promise<string[]> {
  const generation = await currentGeneration(database.db);
  const r = await sql<{ id: string }>`select id from ${sql.table(`${generation}.users`)} order by id`.execute(
    database.db,
  );
  return r.rows.map((u) => u.id);
}

/** Publishes users `<tag>00@t`…; returns the event ids and the users. */
async function publishUsers(tag: string): Promise<{ ids: string[]; names: string[] }> {
  const names = Array.from({ length: EVENTS }, (_, i) => `${tag}${String(i).padStart(2, '0')}@t`);
  const sent = await publishEvents(
    env,
    USER,
    names.map((user) => ({ user, full_name: `Сотрудник ${user}`, at: new Date().toISOString() })),
  );
  return { ids: sent.map((e) => e.id), names };
}

/** Runs the crash consumer until its first batch reaches `at`, then SIGKILLs it there. */
async function killAt(at: 'applied' | 'committed'): Promise<BatchReport> {
  const child = spawnService('services/reporting/test/support/crash-reporting.ts', {
    DATABASE_URL: env.databaseUrl,
    SUBJECT_PREFIX: env.prefix,
    ...env.natsEnv('reporting'),
    CRASH_AT: at,
  });
  children.push(child);
  await child.waitFor('crash point ', 60_000);
  expect((await child.kill('SIGKILL')).signal).toBe('SIGKILL');
  const line = child
    .output()
    .split('\n')
    .find((l) => l.startsWith('crash point ')) as string;
  return JSON.parse(line.slice('crash point '.length)) as BatchReport;
}

/** A live consumer in this process on the same durable, until the durable has nothing left. */
async function takeOver(): Promise<string[]> {
  const { nc } = await env.serviceBus('reporting');
  const applied: string[] = [];
  const consumer: LiveConsumer = await startLiveConsumer({
    nc,
    prefix: env.prefix,
    db: database.db,
    log: env.log,
    hooks: { committed: (b) => void applied.push(...b.applied) },
  });
  try {
    const jsm = await (await env.as('operator')).jetstreamManager();
    await eventually(async () => {
      const info = await jsm.consumers.info(streamNames(env.prefix).stream, REPORTING_CONSUMER);
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    }, 15_000);
  } finally {
    await consumer.stop();
  }
  return applied;
}

describe("reporting's consumer SIGKILLed in the middle of a batch", () => {
  it('after COMMIT, before the acks: the redeliveries find `processed`, nothing applies twice', async () => {
    const { ids, names } = await publishUsers('c');
    const report = await killAt('committed');
    expect(report.applied.length).toBeGreaterThan(1);
    expect(report.applied.every((id) => ids.includes(id))).toBe(true);
    expect((await users()).filter((u) => names.includes(u)).length).toBe(report.applied.length);
    // Not one of them was acknowledged.
    const jsm = await (await env.as('operator')).jetstreamManager();
    const info = await jsm.consumers.info(streamNames(env.prefix).stream, REPORTING_CONSUMER);
    expect(info.num_ack_pending).toBeGreaterThanOrEqual(report.events.length);

    const applied = await takeOver();
    expect(await users()).toEqual(expect.arrayContaining(names));
    // Not one event of the committed batch was applied again; every other exactly once.
    expect(applied.filter((id) => report.applied.includes(id))).toEqual([]);
    expect([...report.applied, ...applied].sort()).toEqual([...ids].sort());
  }, 90_000);

  it('inside the transaction, before COMMIT: it rolls back, and the redeliveries apply each event once', async () => {
    const { ids, names } = await publishUsers('a');
    const report = await killAt('applied');
    expect(report.applied.length).toBeGreaterThan(1);
    expect((await users()).filter((u) => names.includes(u))).toEqual([]);

    const applied = await takeOver();
    expect(await users()).toEqual(expect.arrayContaining(names));
    expect(applied.sort()).toEqual([...ids].sort());
  }, 90_000);
});
