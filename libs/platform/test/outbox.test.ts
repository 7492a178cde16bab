import { addEvent, addEventsFrom, type Database, type Relay, startRelay, streamNames } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import type { JetStreamManager, Subscription } from 'nats';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventDb, openEventSchema, storedCount } from './support/event-schema.ts';

const SCHEMA = 'outbox_test';
let env: TestEnv;
let database: Database<EventDb>;
let jsm: JetStreamManager;
let relay: Relay;
const relays: Relay[] = [];
const databases: Database<EventDb>[] = [];
let wire: Subscription;
/** Every publish seen on the wire (core NATS sees duplicates that the stream drops): subject → Nats-Msg-Ids. */
const published = new Map<string, string[]>();

async function unpublished(): Promise<number> {
  const { rows } = await database.pool.query('select count(*)::int as n from outbox where published_at is null');
  return rows[0].n;
}

function relayOptions() {
  return { nc: env.nc, pool: database.pool, schema: SCHEMA, prefix: env.prefix, log: env.log };
}

beforeAll(async () => {
  env = await createTestEnv('platform-outbox', { nats: 'open' });
  database = await openEventSchema(env, SCHEMA);
  wire = env.nc.subscribe(`${env.prefix}.evt.>`, {
    callback: (_err, msg) => {
      const subject = msg.subject.slice(env.prefix.length + 1);
      published.set(subject, [...(published.get(subject) ?? []), msg.headers?.get('Nats-Msg-Id') ?? '']);
    },
  });
  // A long poll interval: the tests drive the relay with flush() (and its pool's commits wake it).
  relay = await startRelay({ ...relayOptions(), intervalMs: 60_000 });
  relays.push(relay);
  jsm = await env.nc.jetstreamManager();
});

afterAll(async () => {
  for (const r of relays) await r.stop().catch(() => {});
  wire?.unsubscribe();
  for (const d of databases) await d.close().catch(() => {});
  await database?.close();
  await env?.cleanup();
});

describe('outbox relay', () => {
  it('publishes nothing for an event added in a transaction that rolls back', async () => {
    const subject = 'evt.platformtest.rolled_back';
    await expect(
      database.db.transaction().execute(async (trx) => {
        await addEvent(trx, subject, { n: 1 });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await relay.flush();
    const { rows } = await database.pool.query('select count(*)::int as n from outbox');
    expect(rows[0].n).toBe(0);
    expect(await storedCount(jsm, env.prefix, subject)).toBe(0);
    expect(published.get(subject)).toBeUndefined();
  });

  it('publishes a committed event once, with Nats-Msg-Id = envelope id', async () => {
    const subject = 'evt.platformtest.committed';
    const id = await database.db.transaction().execute((trx) => addEvent(trx, subject, { course: 'c1' }));
    await relay.flush();
    await eventually(async () => expect(await unpublished()).toBe(0));
    const stored = await jsm.streams.getMessage(streamNames(env.prefix).stream, {
      last_by_subj: streamNames(env.prefix).subject(subject),
    });
    expect(stored.header.get('Nats-Msg-Id')).toBe(id);
    expect(stored.json()).toMatchObject({ id, type: subject, data: { course: 'c1' } });
    expect(await storedCount(jsm, env.prefix, subject)).toBe(1);
  });

  it('addEventsFrom records one event per selected row in one statement, in order, and wakes the relay', async () => {
    const subject = 'evt.platformtest.bulk';
    const none = await database.db
      .transaction()
      .execute((trx) => addEventsFrom(trx, subject, sql`select '{}'::jsonb as data, 1 as ord where false`));
    expect(none).toBe(0);
    const rows = sql`select jsonb_build_object('n', i, 'who', 'bulk') as data, -i as ord from generate_series(1, 5) as i`;
    await expect(
      database.db.transaction().execute(async (trx) => {
        expect(await addEventsFrom(trx, subject, rows)).toBe(5);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    const { rows: kept } = await database.pool.query('select count(*)::int as n from outbox where subject = $1', [
      subject,
    ]);
    expect(kept[0].n).toBe(0);
    expect(await database.db.transaction().execute((trx) => addEventsFrom(trx, subject, rows))).toBe(5);
    const { rows: written } = await database.pool.query<{ payload: { id: string; data: unknown } }>(
      'select payload from outbox where subject = $1 order by id',
      [subject],
    );
    // Ordered by `ord` (descending n here), each with the envelope addEvent writes and its own id.
    expect(written.map((r) => r.payload.data)).toEqual([5, 4, 3, 2, 1].map((n) => ({ n, who: 'bulk' })));
    for (const { payload } of written) {
      expect(payload).toMatchObject({ type: subject, occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
      expect(Object.keys(payload).sort()).toEqual(['data', 'id', 'occurred_at', 'type']);
    }
    const ids = written.map((r) => r.payload.id);
    expect(new Set(ids).size).toBe(5);
    // No flush: the commit wakes the relay in process (its poll interval is a minute).
    await eventually(async () => expect(published.get(subject)).toEqual(ids));
    expect(await storedCount(jsm, env.prefix, subject)).toBe(5);
  });

  it('keeps one copy in the stream when a crash makes the relay publish a row twice', async () => {
    const subject = 'evt.platformtest.crashed';
    const id = await database.db.transaction().execute((trx) => addEvent(trx, subject, { n: 2 }));
    await relay.flush();
    await eventually(async () => expect(published.get(subject)).toEqual([id]));
    // The crash: the publish happened but the mark was lost, and the claim's lease has lapsed since.
    await sql`update outbox set published_at = null, leased_until = now() - interval '1 second'
      where payload->>'id' = ${id}`.execute(database.db);
    expect(await relay.flush()).toBe(1);
    await eventually(async () => expect(published.get(subject)).toEqual([id, id]));
    expect(await storedCount(jsm, env.prefix, subject)).toBe(1);
    expect(await unpublished()).toBe(0);
  });

  it('leaves rows another relay leases until its lease lapses, then publishes them', async () => {
    const subject = 'evt.platformtest.leased';
    // As a relay that claimed the row and then died (or stalls) before its mark leaves it: leased
    // for 1.5 s more (set in the write's own transaction, so no pass sees it unleased).
    const id = await database.db.transaction().execute(async (trx) => {
      const written = await addEvent(trx, subject, { n: 3 });
      await sql`update outbox set leased_until = now() + interval '1500 milliseconds', leased_by = gen_random_uuid()
        where payload->>'id' = ${written}`.execute(trx);
      return written;
    });
    const leasedAt = Date.now();
    expect(await relay.flush()).toBe(0);
    expect(published.get(subject)).toBeUndefined();
    await eventually(async () => expect(await relay.flush()).toBe(1), 5000, 100);
    expect(Date.now() - leasedAt).toBeGreaterThanOrEqual(1000);
    await eventually(async () => expect(published.get(subject)).toEqual([id]));
    expect(await unpublished()).toBe(0);
  });

  it('marks the acknowledged rows of a batch and gives a failed one back at once, not after its lease', async () => {
    // A row whose publish fails at once: its subject is outside the events stream, and the test
    // answers there with a JetStream error (counting the attempts).
    const ok = 'evt.platformtest.around_failure';
    let attempts = 0;
    const tries = env.nc.subscribe(`${env.prefix}.nostream.>`, {
      callback: (_err, msg) => {
        attempts++;
        msg.respond(JSON.stringify({ error: { code: 503, err_code: 10000, description: 'refused by the test' } }));
      },
    });
    await env.nc.flush();
    const [first, bad, last] = await database.db
      .transaction()
      .execute(async (trx) => [
        await addEvent(trx, ok, { n: 1 }),
        await addEvent(trx, 'nostream.platformtest.fails', {}),
        await addEvent(trx, ok, { n: 2 }),
      ]);
    try {
      await relay.flush();
      await eventually(async () => expect(published.get(ok)).toEqual([first, last]));
      const state = async () =>
        (
          await database.pool.query<{ id: string; published: boolean; held: boolean }>(
            `select payload->>'id' as id, published_at is not null as published,
                published_at is null and coalesce(leased_until > now(), false) as held
              from outbox where payload->>'id' = any($1) order by outbox.id`,
            [[first, bad, last]],
          )
        ).rows;
      await eventually(async () =>
        expect(await state()).toEqual([
          { id: first, published: true, held: false },
          { id: bad, published: false, held: false },
          { id: last, published: true, held: false },
        ]),
      );
      // Given back, so the next pass takes it again at once (its lease would run 30 s) and fails again.
      const before = attempts;
      expect(before).toBeGreaterThan(0);
      await relay.flush();
      await env.nc.flush();
      await eventually(async () => expect(attempts).toBeGreaterThan(before));
      expect((await state())[1]).toEqual({ id: bad, published: false, held: false });
      expect(await storedCount(jsm, env.prefix, ok)).toBe(2);
    } finally {
      tries.unsubscribe();
      await sql`delete from outbox where payload->>'id' = ${bad}`.execute(database.db);
    }
  });

  it('lets two relays on one schema share the rows without publishing any twice', async () => {
    const subject = 'evt.platformtest.shared';
    // Another replica: its own pool, the same schema.
    const replica = await openEventSchema(env, SCHEMA);
    databases.push(replica);
    const second = await startRelay({ ...relayOptions(), pool: replica.pool, intervalMs: 60_000 });
    relays.push(second);
    const ids = await database.db.transaction().execute(async (trx) => {
      const out: string[] = [];
      for (let i = 0; i < 250; i++) out.push(await addEvent(trx, subject, { i }));
      return out;
    });
    await Promise.all([relay.flush(), second.flush(), relay.flush(), second.flush()]);
    await eventually(async () => expect(await unpublished()).toBe(0));
    await env.nc.flush();
    await eventually(async () => expect(published.get(subject)?.length).toBe(250));
    expect([...(published.get(subject) ?? [])].sort()).toEqual([...ids].sort());
    expect(await storedCount(jsm, env.prefix, subject)).toBe(250);
  });

  it('publishes a batch together, and the stream keeps the order the events were written in', async () => {
    const subject = 'evt.platformtest.ordered';
    const ids = await database.db.transaction().execute(async (trx) => {
      const out: string[] = [];
      for (let i = 0; i < 60; i++) out.push(await addEvent(trx, subject, { i }));
      return out;
    });
    // The commit may have woken the relay first: whichever pass took them, all are out.
    await relay.flush();
    await eventually(async () => expect(await unpublished()).toBe(0));
    const stream = streamNames(env.prefix);
    const stored: string[] = [];
    const info = await jsm.streams.info(stream.stream);
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(stream.stream, { seq }).catch(() => null);
      if (m?.subject === stream.subject(subject)) stored.push(m.header.get('Nats-Msg-Id'));
    }
    expect(stored).toEqual(ids);
  });

  it('kick() publishes what was committed without NOTIFY by a client outside the pool', async () => {
    const subject = 'evt.platformtest.kicked';
    const id = 'kicked-1';
    const envelope = { id, type: subject, occurred_at: new Date().toISOString(), data: {} };
    // A client of no service pool: nothing watches it, and it notifies no one.
    const outside = new pg.Client({ connectionString: env.databaseUrl, options: `-c search_path=${SCHEMA}` });
    await outside.connect();
    try {
      await outside.query('insert into outbox (subject, payload) values ($1, $2::jsonb)', [
        subject,
        JSON.stringify(envelope),
      ]);
    } finally {
      await outside.end();
    }
    // Neither a notification nor the poll (a minute) would publish it within the second.
    await new Promise((r) => setTimeout(r, 300));
    expect(published.get(subject)).toBeUndefined();
    relay.kick();
    await eventually(async () => expect(published.get(subject)).toEqual([id]), 900);
  });

  it('wakes up on commit without an explicit flush', async () => {
    const subject = 'evt.platformtest.notified';
    const id = await database.db.transaction().execute((trx) => addEvent(trx, subject, {}));
    await eventually(async () => expect(published.get(subject)).toEqual([id]), 900);
  });

  it("is woken in process by its own pool's commits, without NOTIFY, and not by a rolled-back write", async () => {
    // A second pool on the schema without a relay of its own: its commits notify (the fallback).
    const notified: string[] = [];
    const listener = new pg.Client({ connectionString: env.databaseUrl });
    await listener.connect();
    listener.on('notification', (n) => notified.push(n.payload ?? ''));
    await listener.query('listen studium_outbox');
    const writer = await openEventSchema(env, SCHEMA);
    databases.push(writer);
    try {
      const inTransaction = 'evt.platformtest.in_process';
      const id = await database.db.transaction().execute((trx) => addEvent(trx, inTransaction, {}));
      await eventually(async () => expect(published.get(inTransaction)).toEqual([id]), 900);
      // Outside a transaction (a one-statement write), through Kysely's pool too.
      const alone = 'evt.platformtest.in_process_alone';
      const aloneId = await addEvent(database.db, alone, {});
      await eventually(async () => expect(published.get(alone)).toEqual([aloneId]), 900);
      expect(notified).toEqual([]);
      // The other pool has no relay: its commit notifies, and the relay (LISTEN) publishes it.
      const fromScript = 'evt.platformtest.from_script';
      const scriptId = await writer.db.transaction().execute((trx) => addEvent(trx, fromScript, {}));
      await eventually(async () => expect(published.get(fromScript)).toEqual([scriptId]), 900);
      expect(notified).toEqual([SCHEMA]);
      // A rolled-back write wakes nothing and notifies no one.
      await expect(
        writer.db.transaction().execute(async (trx) => {
          await addEvent(trx, 'evt.platformtest.never', {});
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await new Promise((r) => setTimeout(r, 100));
      expect(notified).toEqual([SCHEMA]);
    } finally {
      await listener.end();
    }
  });

  it('survives losing its LISTEN connection and listens again (no crash, still woken by commits)', async () => {
    const listening = async () =>
      (
        await database.pool.query(
          `select pid from pg_stat_activity where datname = current_database() and query ilike 'listen%'`,
        )
      ).rows.map((r) => r.pid as number);
    const before = await listening();
    expect(before.length).toBeGreaterThan(0);
    await database.pool.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [before]);
    // Every relay of this file reconnects after about a second; then a commit wakes one without a flush.
    await eventually(async () => {
      const now = await listening();
      expect(now.filter((pid) => !before.includes(pid))).toHaveLength(before.length);
    }, 5000);
    const subject = 'evt.platformtest.after_reconnect';
    const id = await database.db.transaction().execute((trx) => addEvent(trx, subject, {}));
    await eventually(async () => expect(published.get(subject)).toEqual([id]), 900);
  });
});
