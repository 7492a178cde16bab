import { randomUUID } from 'node:crypto';
import {
  type ConsumerOptions,
  type Database,
  durablePlan,
  type EventEnvelope,
  ensureConsumer,
  ensureDurable,
  ensureStream,
  RETIRED_DURABLE_IDLE_MS,
  type RunningConsumer,
  startConsumer,
  streamNames,
  subjectDurable,
  subjectMatches,
} from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { type ConsumerInfo, DeliverPolicy, headers, type JetStreamClient, type JetStreamManager, nanos } from 'nats';
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

/** The JetStream durables of a consumer: its own name, or one per subject (`<durable>--…`). */
async function durablesOf(durable: string): Promise<ConsumerInfo[]> {
  const all = await jsm.consumers.list(streamNames(env.prefix).stream).next();
  return all.filter((c) => c.name === durable || c.name.startsWith(`${durable}--`));
}

/** Waits until the consumer's durables have nothing pending or unacknowledged. */
async function settled(durable: string): Promise<void> {
  await eventually(async () => {
    const infos = await durablesOf(durable);
    expect(infos.length).toBeGreaterThan(0);
    for (const info of infos) expect(info.num_pending + info.num_ack_pending).toBe(0);
  });
}

const record: ConsumerOptions<EventDb>['handle'] = async (trx, event) => {
  await trx
    .insertInto('tally')
    .values({ event_id: event.id, note: String((event.data as { note: string }).note) })
    .execute();
};

beforeAll(async () => {
  env = await createTestEnv('platform-consumer', { nats: 'open' });
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

  it('is delivered only its subjects (one durable per subject before NATS 2.10) and applies each event once', async () => {
    await sql`truncate tally`.execute(database.db);
    const [a, b, noise] = ['evt.platformtest.picked_a', 'evt.platformtest.picked_b', 'evt.platformtest.noise'];
    let failed = false;
    await consume('picky', [a, b], async (trx, event) => {
      await record(trx, event);
      if ((event.data as { note: string }).note === 'a1' && !failed) {
        failed = true;
        throw new Error('transient');
      }
    });
    for (let i = 0; i < 60; i++) await publish(noise, { note: `noise ${i}` });
    const b1 = await publish(b, { note: 'b1' });
    await publish(a, { note: 'a1' });
    await publish(b, { note: 'b1' }, b1, `${b1}-again`);
    await publish(a, { note: 'a2' });
    await eventually(async () => expect(failed).toBe(true));
    await settled('picky');
    expect((await tally()).map((t) => t.note)).toEqual(['a1', 'a2', 'b1']);

    const infos = await durablesOf('picky');
    // Deliveries, redeliveries included: the four events of a and b and a1 again. Not one of
    // the 60 noise events (nor the other tests' events on the stream) was sent to this consumer.
    expect(infos.reduce((n, i) => n + i.delivered.consumer_seq, 0)).toBe(5);
    expect(infos.reduce((n, i) => n + i.num_redelivered, 0)).toBe(0);
    // One durable per subject, each with its single filter (pinned by the NATS permissions).
    const plan = durablePlan('picky', [a, b], false);
    expect(infos.map((i) => i.name).sort()).toEqual(plan.map((p) => p.name).sort());
    const names = streamNames(env.prefix);
    expect(infos.map((i) => i.config.filter_subject).sort()).toEqual([names.subject(a), names.subject(b)]);
  });

  it('takes over from the single unfiltered durable of an older release without losing or replaying events', async (_ctx) => {
    // A durable of several subjects (or none) is replaced by one durable per subject on any server.
    await sql`truncate tally`.execute(database.db);
    const [a, b] = ['evt.platformtest.handover_a', 'evt.platformtest.handover_b'];
    const names = streamNames(env.prefix);
    // The previous release's durable: no filter, every event of the stream, acknowledged so far.
    await ensureConsumer(jsm, env.prefix, 'handover', [a, b], false);
    // Applied by the previous release, its processed mark since deleted by retention: never again.
    await publish(a, { note: 'applied before' });
    const old = await js.consumers.get(names.stream, 'handover');
    for (;;) {
      const info = await jsm.consumers.info(names.stream, 'handover');
      if (info.num_pending === 0) break;
      for await (const m of await old.fetch({ max_messages: 500, expires: 1000 })) m.ack();
    }
    // Pending on the old durable when the new release starts: one delivered to a replica that
    // dies before its ack, one not delivered yet.
    await publish(a, { note: 'in flight' });
    await publish(b, { note: 'not delivered' });
    const inFlight = await old.next();
    expect(inFlight?.json<EventEnvelope>().data).toEqual({ note: 'in flight' });

    await consume('handover', [a, b], record);
    const parts = async () => (await durablesOf('handover')).filter((i) => i.name !== 'handover');
    await eventually(async () => {
      expect(await parts()).toHaveLength(2);
      for (const part of await parts()) expect(part.num_pending + part.num_ack_pending).toBe(0);
    });
    expect((await tally()).map((t) => t.note)).toEqual(['in flight', 'not delivered']);
    for (const part of await parts()) expect(part.config.deliver_policy).toBe(DeliverPolicy.StartSequence);
    // The old durable is left to the server, which deletes it once nobody pulls it.
    const retired = await jsm.consumers.info(names.stream, 'handover');
    expect(retired.config.inactive_threshold).toBe(nanos(RETIRED_DURABLE_IDLE_MS));
  });

  it('starts a replacing durable after the stream position its idle predecessor had done', async () => {
    const subject = 'evt.platformtest.quiet';
    const names = streamNames(env.prefix);
    // A predecessor with everything of its subject acknowledged; the stream went on with others.
    await consume('quiet-old', [subject], record);
    await publish(subject, { note: 'quiet' });
    await settled('quiet-old');
    for (let i = 0; i < 5; i++) await publish('evt.platformtest.noise', { note: `later ${i}` });
    const last = (await jsm.streams.info(names.stream)).state.last_seq;
    const plan = { name: 'quiet-new', subjects: [subject], replaces: ['quiet-old', 'quiet-never'] };
    expect(await ensureDurable(jsm, env.prefix, plan)).toEqual({
      startedAfter: last,
      created: true,
      retired: ['quiet-old'],
      kept: [],
    });
    const info = await jsm.consumers.info(names.stream, 'quiet-new');
    expect(info.config.opt_start_seq).toBe(last + 1);
    // Again (a restart, a sibling replica): the durable keeps its start, nothing is retired twice.
    expect(await ensureDurable(jsm, env.prefix, plan)).toEqual({
      startedAfter: null,
      created: false,
      retired: [],
      kept: [],
    });
    expect((await jsm.consumers.info(names.stream, 'quiet-new')).config.opt_start_seq).toBe(last + 1);
  });

  it('names one durable per subject within NATS name rules, distinct per subject', () => {
    const lesson = subjectDurable('homework-lessons', 'evt.lessons.lesson_passed');
    expect(lesson).toMatch(/^homework-lessons--evt_lessons_lesson_passed-[0-9a-f]{8}$/);
    expect(subjectDurable('d', 'evt.a.b_c')).not.toBe(subjectDurable('d', 'evt.a_b.c'));
    expect(subjectDurable('d', 'evt.*.>')).toMatch(/^d--evt_any_all-[0-9a-f]{8}$/);
    expect(durablePlan('d', ['evt.a'], false)).toEqual([{ name: 'd', subjects: ['evt.a'], replaces: [] }]);
    const parts = [subjectDurable('d', 'evt.a'), subjectDurable('d', 'evt.b')];
    expect(durablePlan('d', ['evt.a', 'evt.b'], true)).toEqual([
      { name: 'd', subjects: ['evt.a', 'evt.b'], replaces: parts },
    ]);
    expect(durablePlan('d', ['evt.a', 'evt.b'], false)).toEqual([
      { name: parts[0], subjects: ['evt.a'], replaces: ['d'] },
      { name: parts[1], subjects: ['evt.b'], replaces: ['d'] },
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
