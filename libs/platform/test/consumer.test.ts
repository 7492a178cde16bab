import { randomUUID } from 'node:crypto';
import {
  type ConsumerOptions,
  type Database,
  type EventEnvelope,
  ensureStream,
  type RunningConsumer,
  startConsumer,
  streamNames,
  subjectMatches,
} from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { headers, type JetStreamClient, type JetStreamManager } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventDb, openEventSchema } from './support/event-schema.ts';

const SCHEMA = 'consumer_test';
let env: TestEnv;
let database: Database<EventDb>;
let js: JetStreamClient;
let jsm: JetStreamManager;
const consumers: RunningConsumer[] = [];
const databases: Database<EventDb>[] = [];

/** Publishes an envelope as the relay would; `msgId` differs from the envelope id to get past de-duplication. */
async function publish(subject: string, data: unknown, id: string = randomUUID(), msgId = id): Promise<string> {
  const envelope: EventEnvelope = { id, type: subject, occurred_at: new Date().toISOString(), data };
  const h = headers();
  h.set('Nats-Msg-Id', msgId);
  await js.publish(streamNames(env.prefix).subject(subject), JSON.stringify(envelope), { headers: h });
  return id;
}

async function tally(): Promise<{ event_id: string; note: string }[]> {
  return database.db.selectFrom('tally').select(['event_id', 'note']).orderBy('note').execute();
}

async function consume(
  durable: string,
  subjects: string[],
  handle: ConsumerOptions<EventDb>['handle'],
  db = database,
): Promise<RunningConsumer> {
  const c = await startConsumer<EventDb>({
    nc: env.nc,
    prefix: env.prefix,
    durable,
    subjects,
    db: db.db,
    log: env.log,
    handle,
  });
  consumers.push(c);
  return c;
}

/** Waits until the durable has nothing pending or unacknowledged. */
async function settled(durable: string): Promise<void> {
  await eventually(async () => {
    const info = await jsm.consumers.info(streamNames(env.prefix).stream, durable);
    expect(info.num_pending + info.num_ack_pending).toBe(0);
  });
}

const record: ConsumerOptions<EventDb>['handle'] = async (trx, event) => {
  await trx
    .insertInto('tally')
    .values({ event_id: event.id, note: String((event.data as { note: string }).note) })
    .execute();
};

beforeAll(async () => {
  env = await createTestEnv('platform-consumer');
  database = await openEventSchema(env, SCHEMA);
  jsm = await ensureStream(env.nc, env.prefix);
  js = env.nc.jetstream();
});

afterAll(async () => {
  for (const c of consumers) await c.stop().catch(() => {});
  for (const d of [...databases, database]) await d?.close().catch(() => {});
  await env?.cleanup();
});

describe('startConsumer', () => {
  it('applies each event once, even when the same event arrives twice', async () => {
    await sql`truncate tally`.execute(database.db);
    await consume('dedup', ['evt.platformtest.counted', 'evt.platformtest.also'], record);
    const id = await publish('evt.platformtest.counted', { note: 'a' });
    await publish('evt.platformtest.counted', { note: 'a' }, id, `${id}-again`);
    await publish('evt.platformtest.also', { note: 'b' });
    await publish('evt.platformtest.ignored', { note: 'not mine' });
    await settled('dedup');
    expect((await tally()).map((t) => t.note)).toEqual(['a', 'b']);
  });

  it('acknowledges without applying an event already marked processed (crash after commit, before ack)', async () => {
    await sql`truncate tally`.execute(database.db);
    const id = randomUUID();
    await sql`insert into processed_events (consumer, msg_id) values ('premarked', ${id})`.execute(database.db);
    await consume('premarked', ['evt.platformtest.premarked'], record);
    await publish('evt.platformtest.premarked', { note: 'again' }, id);
    await publish('evt.platformtest.premarked', { note: 'fresh' });
    await settled('premarked');
    expect((await tally()).map((t) => t.note)).toEqual(['fresh']);
  });

  it('shares a durable between two instances and applies every event exactly once', async () => {
    await sql`truncate tally`.execute(database.db);
    const replica = await openEventSchema(env, SCHEMA);
    databases.push(replica);
    const by: Record<string, number> = { one: 0, two: 0 };
    const counting =
      (name: string): ConsumerOptions<EventDb>['handle'] =>
      async (trx, event) => {
        by[name]++;
        await record(trx, event);
      };
    await consume('shared', ['evt.platformtest.shared'], counting('one'));
    await consume('shared', ['evt.platformtest.shared'], counting('two'), replica);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++)
      ids.push(await publish('evt.platformtest.shared', { note: String(i).padStart(2, '0') }));
    await settled('shared');
    const rows = await tally();
    expect(rows).toHaveLength(40);
    expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
    expect(by.one + by.two).toBe(40);
  });

  it('rolls back the effects of a failing handler and applies the event on redelivery', async () => {
    await sql`truncate tally`.execute(database.db);
    let attempts = 0;
    await consume('flaky', ['evt.platformtest.flaky'], async (trx, event) => {
      attempts++;
      await record(trx, event);
      if (attempts === 1) throw new Error('transient');
    });
    await publish('evt.platformtest.flaky', { note: 'once' });
    await eventually(async () => expect(attempts).toBe(2), 5000);
    await settled('flaky');
    expect((await tally()).map((t) => t.note)).toEqual(['once']);
  });

  it('parks an undecodable message as a dead letter instead of redelivering it forever', async () => {
    await sql`truncate tally`.execute(database.db);
    let calls = 0;
    await consume('poison', ['evt.platformtest.poison'], async (trx, event) => {
      calls++;
      await record(trx, event);
    });
    const subject = streamNames(env.prefix).subject('evt.platformtest.poison');
    await js.publish(subject, 'not json');
    await js.publish(subject, JSON.stringify({ type: 'evt.platformtest.poison', data: { note: 'no id' } }));
    await publish('evt.platformtest.poison', { note: 'good' });
    await settled('poison');
    expect(calls).toBe(1);
    expect((await tally()).map((t) => t.note)).toEqual(['good']);
    const parked = await sql<{ consumer: string; msg_id: string | null }>`select consumer, msg_id from dead_letters
      where consumer = 'poison'`.execute(database.db);
    expect(parked.rows).toEqual([
      { consumer: 'poison', msg_id: null },
      { consumer: 'poison', msg_id: null },
    ]);
  });

  it('matches subjects like NATS does (the client-side filter on servers before 2.10)', () => {
    expect(subjectMatches('p.evt.a.b', 'p.evt.a.b')).toBe(true);
    expect(subjectMatches('p.evt.a.b', 'p.evt.a.bc')).toBe(false);
    expect(subjectMatches('p.evt.*.b', 'p.evt.x.b')).toBe(true);
    expect(subjectMatches('p.evt.*', 'p.evt.x.b')).toBe(false);
    expect(subjectMatches('p.evt.>', 'p.evt.x.b')).toBe(true);
    expect(subjectMatches('p.evt.>', 'p.evt')).toBe(false);
    expect(subjectMatches('p.evt.a', 'p.evt')).toBe(false);
  });
});
