import { randomUUID } from 'node:crypto';
import {
  type BatchReport,
  type Database,
  durablePlan,
  type EventEnvelope,
  ensureStream,
  filtersManySubjects,
  type RunningConsumer,
  startConsumer,
  streamNames,
} from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { headers, type JetStreamClient, type JetStreamManager } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../../../test/support/process.ts';
import { type EventDb, openEventSchema } from './support/event-schema.ts';

// A consumer process SIGKILLed in the middle of a batch, at the two points where a crash could
// lose or double events: inside the batch's transaction (effects and marks written, not committed)
// and after its COMMIT (acks not sent). Another consumer on the same durable then takes the
// redeliveries; every event must be in `tally` (which has no unique key) exactly once.
const SCHEMA = 'consumer_crash';
const EVENTS = 20;
let env: TestEnv;
let database: Database<EventDb>;
let js: JetStreamClient;
let jsm: JetStreamManager;
const consumers: RunningConsumer[] = [];
const children: ServiceProcess[] = [];

beforeAll(async () => {
  env = await createTestEnv('platform-consumer-crash', { nats: 'open' });
  database = await openEventSchema(env, SCHEMA);
  jsm = await ensureStream(env.nc, env.prefix);
  js = env.nc.jetstream();
});

afterAll(async () => {
  for (const c of children) await c.kill();
  for (const c of consumers) await c.stop().catch(() => {});
  await database?.close();
  await env?.cleanup();
});

async function publish(subject: string, note: string): Promise<string> {
  const id = randomUUID();
  const envelope: EventEnvelope = { id, type: subject, occurred_at: new Date().toISOString(), data: { note } };
  const h = headers();
  h.set('Nats-Msg-Id', id);
  await js.publish(streamNames(env.prefix).subject(subject), JSON.stringify(envelope), { headers: h });
  return id;
}

/** How many times each event's effect is in `tally`. */
async function effects(): Promise<Map<string, number>> {
  const rows = await database.db.selectFrom('tally').select('event_id').execute();
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.event_id, (counts.get(r.event_id) ?? 0) + 1);
  return counts;
}

/** Runs the crash consumer until its first batch reaches `at`, then SIGKILLs it there. */
async function killAt(at: 'applied' | 'committed', durable: string, subject: string): Promise<BatchReport> {
  const child = spawnService('libs/platform/test/support/crash-consumer.ts', {
    NATS_URL: env.natsUrl,
    DATABASE_URL: env.databaseUrl,
    SUBJECT_PREFIX: env.prefix,
    CRASH_SCHEMA: SCHEMA,
    CRASH_DURABLE: durable,
    CRASH_SUBJECT: subject,
    CRASH_AT: at,
  });
  children.push(child);
  await child.waitFor('crash point ', 30_000);
  expect((await child.kill('SIGKILL')).signal).toBe('SIGKILL');
  const line = child
    .output()
    .split('\n')
    .find((l) => l.startsWith('crash point ')) as string;
  return JSON.parse(line.slice('crash point '.length)) as BatchReport;
}

/** A consumer in this process on the same durable; returns the ids its handler was called for. */
async function takeOver(durable: string, subject: string): Promise<string[]> {
  const called: string[] = [];
  consumers.push(
    await startConsumer<EventDb>({
      nc: env.nc,
      prefix: env.prefix,
      durable,
      subjects: [subject],
      db: database.db,
      log: env.log,
      async handle(trx, event) {
        called.push(event.id);
        await trx
          .insertInto('tally')
          .values({ event_id: event.id, note: (event.data as { note: string }).note })
          .execute();
      },
    }),
  );
  return called;
}

/** Waits until the durable has nothing pending or unacknowledged. */
async function settled(durable: string, subject: string): Promise<void> {
  const [plan] = durablePlan(durable, [subject], filtersManySubjects(env.nc));
  await eventually(async () => {
    const info = await jsm.consumers.info(streamNames(env.prefix).stream, plan?.name as string);
    expect(info.num_pending + info.num_ack_pending).toBe(0);
  }, 15_000);
}

describe('a consumer SIGKILLed in the middle of a batch', () => {
  it('after COMMIT, before the acks: the redeliveries find their marks, nothing applies twice', async () => {
    const [durable, subject] = ['crash-committed', 'evt.platformtest.crash_committed'];
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) ids.push(await publish(subject, `c${i}`));
    const report = await killAt('committed', durable, subject);
    // The batch is several events, all applied, and committed: their effects are there already.
    expect(report.applied.length).toBeGreaterThan(1);
    expect(report.applied).toEqual(report.events);
    const before = await effects();
    expect([...before.keys()].sort()).toEqual([...report.applied].sort());
    // Not one of them was acknowledged.
    const [plan] = durablePlan(durable, [subject], filtersManySubjects(env.nc));
    const info = await jsm.consumers.info(streamNames(env.prefix).stream, plan?.name as string);
    expect(info.num_ack_pending).toBeGreaterThanOrEqual(report.events.length);

    const called = await takeOver(durable, subject);
    await settled(durable, subject);
    const after = await effects();
    expect([...after.keys()].sort()).toEqual([...ids].sort());
    expect([...after.values()].every((n) => n === 1)).toBe(true);
    // The committed batch was redelivered and skipped by its marks: its handler never ran again.
    expect(called.filter((id) => report.applied.includes(id))).toEqual([]);
    expect(called.sort()).toEqual(ids.filter((id) => !report.applied.includes(id)).sort());
  }, 60_000);

  it('inside the transaction, before COMMIT: it rolls back, and the redeliveries apply each event once', async () => {
    const [durable, subject] = ['crash-applied', 'evt.platformtest.crash_applied'];
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) ids.push(await publish(subject, `a${i}`));
    const mine = () => database.db.selectFrom('tally').select('event_id').where('event_id', 'in', ids).execute();
    const report = await killAt('applied', durable, subject);
    // The handlers of several events ran in the transaction the kill cut off: none of it stays.
    expect(report.applied.length).toBeGreaterThan(1);
    expect(await mine()).toEqual([]);

    const called = await takeOver(durable, subject);
    await settled(durable, subject);
    const after = await effects();
    expect(ids.map((id) => after.get(id))).toEqual(ids.map(() => 1));
    // Every event of the killed batch was applied again (its marks had gone with the rollback).
    expect(report.applied.every((id) => called.includes(id))).toBe(true);
    expect(called.sort()).toEqual([...ids].sort());
  }, 60_000);
});
