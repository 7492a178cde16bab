import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ConsumerOptions,
  consumersReady,
  createMetrics,
  type Database,
  durablePlan,
  type EventEnvelope,
  ensureStream,
  listDeadLetters,
  type RunningConsumer,
  replayDeadLetter,
  startConsumer,
  startHealthServer,
  streamNames,
} from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { headers, type JetStreamClient, type JetStreamManager } from 'nats';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventDb, openEventSchema } from './support/event-schema.ts';

const SCHEMA = 'consumer_resilience';
let env: TestEnv;
let database: Database<EventDb>;
let js: JetStreamClient;
let jsm: JetStreamManager;
const consumers: RunningConsumer[] = [];
let server: Server;
let health: string;

async function publish(subject: string, data: unknown): Promise<string> {
  const id = randomUUID();
  const envelope: EventEnvelope = { id, type: subject, occurred_at: new Date().toISOString(), data };
  const h = headers();
  h.set('Nats-Msg-Id', id);
  await js.publish(streamNames(env.prefix).subject(subject), JSON.stringify(envelope), { headers: h });
  return id;
}

async function notes(): Promise<string[]> {
  return (await database.db.selectFrom('tally').select('note').orderBy('note').execute()).map((r) => r.note);
}

async function consume(
  durable: string,
  subject: string,
  extra: Partial<ConsumerOptions<EventDb>> & Pick<ConsumerOptions<EventDb>, 'handle'>,
) {
  const c = await startConsumer<EventDb>({
    nc: env.nc,
    prefix: env.prefix,
    durable,
    subjects: [subject],
    db: database.db,
    log: env.log,
    ...extra,
  });
  consumers.push(c);
  return c;
}

beforeAll(async () => {
  env = await createTestEnv('platform-consumer-resilience', { nats: 'open' });
  database = await openEventSchema(env, SCHEMA);
  jsm = await ensureStream(env.nc, env.prefix);
  js = env.nc.jetstream();
  server = await startHealthServer(0, { consumers: consumersReady }, createMetrics('consumer-test'));
  health = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const c of consumers) await c.stop().catch(() => {});
  await new Promise((r) => server?.close(r));
  await database?.close();
  await env?.cleanup();
});

describe('poison events', () => {
  it('parks an event after maxAttempts failures, keeps consuming, and applies it when replayed after a fix', async () => {
    const subject = 'evt.platformtest.poison';
    let fixed = false;
    const attempts: Record<string, number> = {};
    const metrics = new Registry();
    await consume('poisoned', subject, {
      maxAttempts: 3,
      retryDelayMs: 50,
      metrics,
      async handle(trx, event) {
        const note = (event.data as { note: string }).note;
        attempts[note] = (attempts[note] ?? 0) + 1;
        if (note === 'poison' && !fixed) throw new Error('cannot apply poison');
        await trx.insertInto('tally').values({ event_id: event.id, note }).execute();
      },
    });
    const poisonId = await publish(subject, { note: 'poison' });
    await publish(subject, { note: 'after' });
    await eventually(async () => expect(await listDeadLetters(database.pool)).toHaveLength(1), 5000);
    const [parked] = await listDeadLetters(database.pool);
    expect(parked).toMatchObject({ consumer: 'poisoned', msg_id: poisonId, attempts: 3, replayed_at: null });
    expect(parked.error).toContain('cannot apply poison');
    expect(parked.subject).toBe(streamNames(env.prefix).subject(subject));
    expect(attempts.poison).toBe(3);
    // The events behind it were applied; the poison one was not.
    await eventually(async () => expect(await notes()).toEqual(['after']));
    expect(await metrics.getSingleMetricAsString('studium_dead_letters_total')).toContain('consumer="poisoned"} 1');
    // No further deliveries: the poison event is acknowledged, not spinning.
    await new Promise((r) => setTimeout(r, 300));
    expect(attempts.poison).toBe(3);

    fixed = true;
    expect(await replayDeadLetter(database.pool, env.nc, SCHEMA, parked.id)).toBe(true);
    await eventually(async () => expect(await notes()).toEqual(['after', 'poison']));
    expect(await listDeadLetters(database.pool)).toHaveLength(0);
    expect((await listDeadLetters(database.pool, { all: true }))[0].replayed_at).not.toBeNull();
    // A second replay of the same dead letter does nothing.
    expect(await replayDeadLetter(database.pool, env.nc, SCHEMA, parked.id)).toBe(false);
  });

  it('parks an undecodable message at once', async () => {
    const subject = 'evt.platformtest.garbage';
    let calls = 0;
    await consume('garbage', subject, {
      async handle() {
        calls++;
      },
    });
    await js.publish(streamNames(env.prefix).subject(subject), 'not json at all');
    await eventually(async () => {
      const parked = (await listDeadLetters(database.pool)).filter((d) => d.consumer === 'garbage');
      expect(parked).toMatchObject([{ msg_id: null, attempts: 1 }]);
      expect(parked[0].error).toContain('malformed event');
    });
    expect(calls).toBe(0);
  });
});

describe('a consumer loop that ends', () => {
  it('restarts (re-creating a deleted durable), reports not ready meanwhile, and goes on applying events', async () => {
    const subject = 'evt.platformtest.restarting';
    const metrics = new Registry();
    const c = await consume('restarting', subject, {
      restartDelayMs: 1500,
      metrics,
      async handle(trx, event) {
        await trx
          .insertInto('tally')
          .values({ event_id: event.id, note: (event.data as { note: string }).note })
          .execute();
      },
    });
    await publish(subject, { note: 'r1' });
    await eventually(async () => expect(await notes()).toContain('r1'));
    await consumersReady();
    expect(c.running).toBe(true);

    // An operator (or a stream re-creation) deletes the durable under the running loop.
    await jsm.consumers.delete(streamNames(env.prefix).stream, 'restarting');
    await eventually(async () => expect(c.running).toBe(false), 5000, 10);
    await expect(consumersReady()).rejects.toThrow('restarting');
    // What a service's /readyz answers meanwhile.
    const ready = await fetch(`${health}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', failed: ['consumers'] });
    await eventually(async () => expect(c.running).toBe(true), 5000);
    expect(c.restarts).toBe(1);
    await consumersReady();
    expect((await fetch(`${health}/readyz`)).status).toBe(200);
    expect(await metrics.getSingleMetricAsString('studium_consumer_restarts_total')).toContain(
      'consumer="restarting"} 1',
    );

    await publish(subject, { note: 'r2' });
    await eventually(async () => expect((await notes()).filter((n) => n.startsWith('r'))).toEqual(['r1', 'r2']));
  });
});

describe('a consumer of several subjects', () => {
  it('is running only while every durable loop is, restarts the one that ended, and stops them all', async (_ctx) => {
    // One durable per subject, on any server (a single filter is what the NATS permissions pin).
    const [a, b] = ['evt.platformtest.several_a', 'evt.platformtest.several_b'];
    const metrics = new Registry();
    const c = await startConsumer<EventDb>({
      nc: env.nc,
      prefix: env.prefix,
      durable: 'several',
      subjects: [a, b],
      db: database.db,
      log: env.log,
      restartDelayMs: 1500,
      metrics,
      async handle(trx, event) {
        await trx
          .insertInto('tally')
          .values({ event_id: event.id, note: (event.data as { note: string }).note })
          .execute();
      },
    });
    consumers.push(c);
    const several = async () => (await notes()).filter((n) => n.startsWith('s'));
    const [partA, partB] = durablePlan('several', [a, b], false).map((p) => p.name);
    await publish(a, { note: 's1' });
    await publish(b, { note: 's2' });
    await eventually(async () => expect(await several()).toEqual(['s1', 's2']));
    expect(c.running).toBe(true);

    await jsm.consumers.delete(streamNames(env.prefix).stream, partB as string);
    await eventually(async () => expect(c.running).toBe(false), 5000, 10);
    // Readiness names the durable that is down.
    await expect(consumersReady()).rejects.toThrow(partB);
    // The other durable goes on meanwhile.
    await publish(a, { note: 's3' });
    await eventually(async () => expect(await several()).toContain('s3'));
    await eventually(async () => expect(c.running).toBe(true), 5000);
    expect(c.restarts).toBe(1);
    await consumersReady();
    expect(await metrics.getSingleMetricAsString('studium_consumer_restarts_total')).toContain(
      `consumer="${partB}"} 1`,
    );
    await publish(b, { note: 's4' });
    await eventually(async () => expect(await several()).toEqual(['s1', 's2', 's3', 's4']));

    await c.stop();
    await publish(a, { note: 's5' });
    await publish(b, { note: 's6' });
    await new Promise((r) => setTimeout(r, 500));
    expect(await several()).toEqual(['s1', 's2', 's3', 's4']);
    const stream = streamNames(env.prefix).stream;
    for (const part of [partA, partB]) {
      const info = await jsm.consumers.info(stream, part as string);
      expect(info.num_pending + info.num_ack_pending).toBe(1);
    }
  });
});
