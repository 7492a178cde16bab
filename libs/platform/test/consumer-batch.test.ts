import { randomUUID } from 'node:crypto';
import {
  type BatchReport,
  CONSUMER_BATCH,
  type ConsumerOptions,
  type Database,
  durablePlan,
  type EventEnvelope,
  ensureStream,
  filtersManySubjects,
  listDeadLetters,
  openDatabase,
  type RunningConsumer,
  startConsumer,
  streamNames,
} from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { headers, type JetStreamClient, type JetStreamManager } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventDb, openEventSchema } from './support/event-schema.ts';

// Batches of the platform's consumers: the events pending when a consumer starts are published
// first, so that they arrive together and are applied in few transactions.
const SCHEMA = 'consumer_batch';
let env: TestEnv;
let database: Database<EventDb>;
let js: JetStreamClient;
let jsm: JetStreamManager;
const consumers: RunningConsumer[] = [];
const databases: Database<EventDb>[] = [];

beforeAll(async () => {
  env = await createTestEnv('platform-consumer-batch', { nats: 'open' });
  database = await openEventSchema(env, SCHEMA);
  jsm = await ensureStream(env.nc, env.prefix);
  js = env.nc.jetstream();
});

afterAll(async () => {
  for (const c of consumers) await c.stop().catch(() => {});
  for (const d of [...databases, database]) await d?.close().catch(() => {});
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

async function publishAll(subject: string, notes: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const note of notes) ids.push(await publish(subject, note));
  return ids;
}

const noteOf = (event: EventEnvelope) => (event.data as { note: string }).note;

/** The notes in `tally` from these events, sorted (one row per application: no unique key). */
async function tallied(ids: string[]): Promise<string[]> {
  const rows = await database.db
    .selectFrom('tally')
    .select('note')
    .where('event_id', 'in', ids)
    .orderBy('note')
    .execute();
  return rows.map((r) => r.note);
}

async function settled(durable: string, subject: string): Promise<void> {
  const [plan] = durablePlan(durable, [subject], filtersManySubjects(env.nc));
  await eventually(async () => {
    const info = await jsm.consumers.info(streamNames(env.prefix).stream, plan?.name as string);
    expect(info.num_pending + info.num_ack_pending).toBe(0);
  }, 15_000);
}

/** Starts a consumer that reports each batch it committed (or, with `applied`, each it tried). */
async function consume(
  durable: string,
  subject: string,
  handle: ConsumerOptions<EventDb>['handle'],
  extra: Partial<ConsumerOptions<EventDb>> = {},
): Promise<{ committed: BatchReport[]; tried: BatchReport[] }> {
  const committed: BatchReport[] = [];
  const tried: BatchReport[] = [];
  consumers.push(
    await startConsumer<EventDb>({
      nc: env.nc,
      prefix: env.prefix,
      durable,
      subjects: [subject],
      db: database.db,
      log: env.log,
      handle,
      hooks: { applied: (b) => void tried.push(b), committed: (b) => void committed.push(b) },
      ...extra,
    }),
  );
  return { committed, tried };
}

const record: ConsumerOptions<EventDb>['handle'] = async (trx, event) => {
  await trx
    .insertInto('tally')
    .values({ event_id: event.id, note: noteOf(event) })
    .execute();
};

describe('a consumer with events pending', () => {
  it('applies them in stream order, a few transactions of BEGIN, one marks statement, the effects and COMMIT', async () => {
    const [durable, subject] = ['rounds', 'evt.platformtest.rounds'];
    const notes = Array.from({ length: 20 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    const ids = await publishAll(subject, notes);
    // The consumer's own pool, every statement of its clients counted (BEGIN and COMMIT too).
    const counted = openDatabase<EventDb>(env.databaseUrl, SCHEMA, 2);
    databases.push(counted);
    const statements: string[] = [];
    counted.pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...a: unknown[]) => unknown;
      (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const first = args[0] as string | { text?: string };
        statements.push(typeof first === 'string' ? first : (first.text ?? ''));
        return query(...args);
      };
    });
    const order: string[] = [];
    const { committed } = await consume(
      durable,
      subject,
      async (trx, event) => {
        order.push(noteOf(event));
        await record(trx, event);
      },
      { db: counted.db },
    );
    await settled(durable, subject);
    expect(await tallied(ids)).toEqual(notes);
    expect(order).toEqual(notes);
    const batches = committed.length;
    // One event per transaction was BEGIN, the mark, the effect and COMMIT: 4 × 20 = 80 here.
    // Now each batch costs BEGIN, the marks and COMMIT, and each event only its effect.
    expect(statements.length).toBe(3 * batches + notes.length);
    expect(batches).toBeLessThanOrEqual(Math.ceil(notes.length / 4));
    expect(statements.filter((s) => s.includes('processed_events'))).toHaveLength(batches);
    console.log(
      `consumer batches: ${notes.length} pending events in ${batches} transaction(s), ${statements.length} round trips (one per transaction: ${4 * notes.length})`,
    );
  });

  it('takes a single event at once, alone', async () => {
    const [durable, subject] = ['single', 'evt.platformtest.single'];
    const { committed } = await consume(durable, subject, record);
    const started = Date.now();
    const id = await publish(subject, 'alone');
    // No wait for a batch to fill: its own transaction, as soon as it arrives.
    await eventually(async () => expect(committed.map((b) => b.events)).toEqual([[id]]), 1000, 2);
    console.log(`consumer batches: a single event committed ${Date.now() - started} ms after its publish`);
    expect(await tallied([id])).toEqual(['alone']);
  });

  it('keeps each batch within CONSUMER_BATCH events', async () => {
    const [durable, subject] = ['bounded', 'evt.platformtest.bounded'];
    const notes = Array.from({ length: CONSUMER_BATCH * 2 + 5 }, (_, i) => `b${String(i).padStart(3, '0')}`);
    const ids = await publishAll(subject, notes);
    const { committed } = await consume(durable, subject, record);
    await settled(durable, subject);
    expect(await tallied(ids)).toEqual(notes);
    expect(committed.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...committed.map((b) => b.events.length))).toBeLessThanOrEqual(CONSUMER_BATCH);
    expect(committed.flatMap((b) => b.applied)).toEqual(ids);
  });

  it('retries a failing event alone: the others commit once, a second failure rolls back to its savepoint', async () => {
    const [durable, subject] = ['failing', 'evt.platformtest.failing'];
    const notes = Array.from({ length: 10 }, (_, i) => `f${i}`);
    const ids = await publishAll(subject, notes);
    const failed = new Set<string>();
    const calls: string[] = [];
    const { committed } = await consume(
      durable,
      subject,
      async (trx, event) => {
        const note = noteOf(event);
        calls.push(note);
        // Effects written before the failure: they must not stay.
        await record(trx, event);
        if ((note === 'f3' || note === 'f6') && !failed.has(note)) {
          failed.add(note);
          throw new Error(`transient ${note}`);
        }
      },
      { retryDelayMs: 50 },
    );
    await settled(durable, subject);
    expect(await tallied(ids)).toEqual(notes);
    // The first transaction failed at f3 and was rolled back; the second (savepoints) applied all
    // but f3 and f6, f6's effects and mark rolled back alone; f3 and f6 came back and applied.
    const first = committed[0] as BatchReport;
    expect(first.events.length).toBeGreaterThan(2);
    expect(first.events).not.toContain(ids[3]);
    expect(first.events).toContain(ids[6]);
    expect(first.applied).not.toContain(ids[6]);
    expect(committed.flatMap((b) => b.applied).sort()).toEqual([...ids].sort());
    const times = (note: string) => calls.filter((n) => n === note).length;
    // Each failing event ran twice (the failure, the redelivery); one after a failure in the
    // batch ran once (the first transaction stopped at the failure); only those before it twice.
    expect(['f3', 'f6', 'f7', 'f8', 'f9'].map(times)).toEqual([2, 2, 1, 1, 1]);
  });

  it('applies a batch that fails at COMMIT one event per transaction, and parks only the one at fault', async () => {
    const [durable, subject] = ['deferred', 'evt.platformtest.deferred'];
    // A constraint checked at COMMIT: no handler sees the error, the commit does.
    await sql`create table once_only (note text not null,
      constraint once_only_note unique (note) deferrable initially deferred)`.execute(database.db);
    await sql`insert into once_only (note) values ('taken')`.execute(database.db);
    const notes = ['d0', 'd1', 'taken', 'd2'];
    const ids = await publishAll(subject, notes);
    const { committed, tried } = await consume(
      durable,
      subject,
      async (trx, event) => {
        await record(trx, event);
        await sql`insert into once_only (note) values (${noteOf(event)})`.execute(trx);
      },
      { maxAttempts: 2, retryDelayMs: 50 },
    );
    await eventually(async () => {
      const parked = (await listDeadLetters(database.pool)).filter((d) => d.consumer === durable);
      expect(parked).toMatchObject([{ msg_id: ids[2], attempts: 2 }]);
      expect(parked[0]?.error).toContain('once_only_note');
    });
    await settled(durable, subject);
    expect(await tallied(ids)).toEqual(['d0', 'd1', 'd2']);
    // The whole batch reached COMMIT once, then each event alone.
    expect(tried[0]?.events).toEqual(ids);
    expect(committed.every((b) => b.events.length === 1)).toBe(true);
  });
});
