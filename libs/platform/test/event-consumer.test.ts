import { randomUUID } from 'node:crypto';
import { type CourseUnpublished, events } from '@studium/contracts';
import {
  type Database,
  type EventEnvelope,
  ensureStream,
  listDeadLetters,
  type RunningConsumer,
  startEventConsumer,
  streamNames,
} from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { headers, type JetStreamClient } from 'nats';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventDb, openEventSchema } from './support/event-schema.ts';

const SCHEMA = 'event_consumer_test';
const SUBJECT = events['courses.course_unpublished'].subject;
let env: TestEnv;
let database: Database<EventDb>;
let js: JetStreamClient;
const consumers: RunningConsumer[] = [];

/** Publishes an envelope as the outbox relay would. */
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

beforeAll(async () => {
  env = await createTestEnv('platform-event-consumer', { nats: 'open' });
  database = await openEventSchema(env, SCHEMA);
  await ensureStream(env.nc, env.prefix);
  js = env.nc.jetstream();
});

afterAll(async () => {
  for (const c of consumers) await c.stop().catch(() => {});
  await database?.close();
  await env?.cleanup();
});

describe('startEventConsumer', () => {
  it('hands the handler the parsed payload; parks a malformed one at once with the reason and goes on', async () => {
    const seen: CourseUnpublished[] = [];
    const metrics = new Registry();
    consumers.push(
      await startEventConsumer({
        nc: env.nc,
        prefix: env.prefix,
        durable: 'typed',
        db: database.db,
        log: env.log,
        metrics,
        // Many attempts: a malformed payload must not use them up, it is parked on the first delivery.
        maxAttempts: 50,
        retryDelayMs: 50,
        on: {
          async 'courses.course_unpublished'(trx, e, event) {
            seen.push(e);
            await trx.insertInto('tally').values({ event_id: event.id, note: e.course }).execute();
          },
        },
      }),
    );
    const at = new Date().toISOString();
    const first = await publish(SUBJECT, { course: 'crs_before', by: 'anna', at });
    // `by` missing and `at` not a timestamp: a publisher bug no redelivery fixes.
    const bad = await publish(SUBJECT, { course: 'crs_bad', at: 42 });
    await publish(SUBJECT, { course: 'crs_after', by: 'anna', at, extra: true });

    await eventually(async () => expect(await notes()).toEqual(['crs_after', 'crs_before']), 5000);
    const parked = await eventually(async () => {
      const rows = (await listDeadLetters(database.pool)).filter((d) => d.consumer === 'typed');
      expect(rows).toHaveLength(1);
      return rows;
    });
    expect(parked[0]).toMatchObject({
      msg_id: bad,
      subject: streamNames(env.prefix).subject(SUBJECT),
      attempts: 1,
      replayed_at: null,
    });
    expect(parked[0].error).toContain('malformed courses.course_unpublished payload');
    expect(parked[0].error).toContain('by:');
    expect(parked[0].error).toContain('at:');
    // The handler never saw the malformed payload, nor was it marked processed.
    expect(seen.map((e) => e.course).sort()).toEqual(['crs_after', 'crs_before']);
    expect(seen.find((e) => e.course === 'crs_after')).toMatchObject({ extra: true });
    const processed = await database.pool.query('select msg_id from processed_events where consumer = $1', ['typed']);
    expect(processed.rows.map((r) => r.msg_id)).not.toContain(bad);
    expect(processed.rows.map((r) => r.msg_id)).toContain(first);
    expect(await metrics.getSingleMetricAsString('studium_dead_letters_total')).toContain('consumer="typed"} 1');
  });

  it('refuses to start without any event to consume', async () => {
    await expect(
      startEventConsumer({ nc: env.nc, prefix: env.prefix, durable: 'empty', db: database.db, log: env.log, on: {} }),
    ).rejects.toThrow(/no events/);
  });
});
