import { type Database, PLATFORM_RETAINED, startRetention } from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventDb, openEventSchema } from './support/event-schema.ts';

const SCHEMA = 'retention_test';
let env: TestEnv;
let database: Database<EventDb>;

const count = async (sql: string) => (await database.pool.query(sql)).rows[0].n as number;

beforeAll(async () => {
  env = await createTestEnv('platform-retention', { nats: 'open' });
  database = await openEventSchema(env, SCHEMA);
  const q = (sql: string) => database.pool.query(sql);
  // A service's own table, like enrollment's mail_outbox.
  await q('create table sent_mail (id serial primary key, enqueued_at timestamptz)');
  await q(`insert into outbox (subject, payload, created_at, published_at) values
    ('evt.a', '{"n":"old published"}', now() - interval '40 days', now() - interval '40 days'),
    ('evt.a', '{"n":"old unpublished"}', now() - interval '40 days', null),
    ('evt.a', '{"n":"recent published"}', now() - interval '2 days', now() - interval '2 days')`);
  await q(`insert into processed_events (consumer, msg_id, processed_at) values
    ('c', 'old', now() - interval '31 days'), ('c', 'recent', now() - interval '29 days')`);
  await q(`insert into dead_letters (consumer, msg_id, subject, payload, error, attempts, parked_at, replayed_at) values
    ('c', 'replayed long ago', 's', '{}', 'e', 5, now() - interval '60 days', now() - interval '45 days'),
    ('c', 'parked long ago', 's', '{}', 'e', 5, now() - interval '60 days', null)`);
  await q(`insert into sent_mail (enqueued_at) values (now() - interval '40 days'), (null), (now())`);
});

afterAll(async () => {
  await database?.close();
  await env?.cleanup();
});

describe('retention job', () => {
  it('deletes old published events, processed ids, replayed dead letters and sent mail; keeps the rest', async () => {
    const metrics = new Registry();
    const retention = startRetention({
      pool: database.pool,
      log: env.log,
      days: 30,
      intervalMs: 60_000,
      tables: [...PLATFORM_RETAINED, { table: 'sent_mail', column: 'enqueued_at' }],
      metrics,
    });
    try {
      // The pass at start has run by the time run() returns (single flight).
      await retention.run();
      const payloads = (await database.pool.query(`select payload->>'n' as n from outbox order by id`)).rows;
      expect(payloads.map((r) => r.n)).toEqual(['old unpublished', 'recent published']);
      expect((await database.pool.query('select msg_id from processed_events')).rows).toEqual([{ msg_id: 'recent' }]);
      expect((await database.pool.query('select msg_id from dead_letters')).rows).toEqual([
        { msg_id: 'parked long ago' },
      ]);
      expect(await count('select count(*)::int as n from sent_mail')).toBe(2);
      expect(await count('select count(*)::int as n from sent_mail where enqueued_at is null')).toBe(1);
      const text = await metrics.getSingleMetricAsString('studium_retention_deleted_total');
      expect(text).toContain('table="outbox"} 1');
      expect(text).toContain('table="sent_mail"} 1');
      // A second pass finds nothing more.
      expect(await retention.run()).toEqual({ outbox: 0, processed_events: 0, dead_letters: 0, sent_mail: 0 });
    } finally {
      await retention.stop();
    }
  });

  it('refuses a table name that is not a plain identifier', async () => {
    const retention = startRetention({
      pool: database.pool,
      log: env.log,
      days: 30,
      intervalMs: 60_000,
      tables: [{ table: 'outbox; drop table outbox', column: 'published_at' }],
    });
    await retention.run();
    await retention.stop();
    expect(await count('select count(*)::int as n from outbox')).toBe(2);
  });
});
