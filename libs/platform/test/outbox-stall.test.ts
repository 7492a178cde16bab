// Issue 32: a 12 s NATS stall left every PgBouncer server connection of courses, homework and
// reporting (pools of 2) held by relays waiting for their JetStream acks inside a transaction,
// so the services' own queries timed out while PostgreSQL itself answered. Here two replicas of
// a service share such a pool while this file's nats-server is stopped (SIGSTOP): the relays
// keep trying to publish, and the database stays free for everything else.
import {
  addEvent,
  type Database,
  migrate,
  openDatabase,
  PLATFORM_MIGRATIONS,
  type Relay,
  startRelay,
  streamNames,
} from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgBouncer, startPgBouncer } from '../../../test/support/pgbouncer.ts';
import type { EventDb } from './support/event-schema.ts';

const SCHEMA = 'stalled';
const SUBJECT = 'evt.platformtest.stalled';
let env: TestEnv;
let bouncer: PgBouncer;
let admin: pg.Client;
const databases: Database<EventDb>[] = [];
const relays: Relay[] = [];
let stopped = false;

/** A replica of the service: its pool (2 connections) through the pooler, LISTEN straight to PostgreSQL. */
function replica(): Database<EventDb> {
  const d = openDatabase<EventDb>(bouncer.url(SCHEMA), SCHEMA, {
    max: 2,
    preparedStatements: false,
    directUrl: env.databaseUrl,
  });
  databases.push(d);
  return d;
}

/** The database's sessions of this test's database that sit inside a transaction between statements. */
async function idleInTransaction(): Promise<number> {
  const { rows } = await admin.query(
    `select count(*)::int as n from pg_stat_activity
      where datname = current_database() and state like 'idle in transaction%'`,
  );
  return rows[0].n;
}

async function unpublished(d: Database<EventDb>): Promise<number> {
  const { rows } = await d.pool.query('select count(*)::int as n from outbox where published_at is null');
  return rows[0].n;
}

beforeAll(async () => {
  env = await createTestEnv('platform-outbox-stall', { nats: 'open' });
  admin = new pg.Client({ connectionString: env.databaseUrl });
  await admin.connect();
  const setup = openDatabase<EventDb>(env.databaseUrl, SCHEMA, 1);
  await migrate(setup.pool, SCHEMA, [PLATFORM_MIGRATIONS]);
  await setup.pool.query('create table tally (event_id text not null, note text not null)');
  await setup.close();
  // As the shipped pooler runs it for courses, homework and reporting: two server connections.
  bouncer = await startPgBouncer({
    database: new URL(env.databaseUrl).pathname.slice(1),
    schemas: [SCHEMA],
    poolSize: 2,
  });
});

afterAll(async () => {
  if (stopped && env) process.kill(env.nats.pid, 'SIGCONT');
  for (const r of relays) await r.stop().catch(() => {});
  for (const d of databases) await d.close().catch(() => {});
  await admin?.end().catch(() => {});
  await env?.cleanup();
  await bouncer?.cleanup();
});

describe('outbox relay while NATS stalls', () => {
  it('holds no database connection while it waits for NATS, and stores every event once after', async () => {
    const replicas = [replica(), replica()];
    for (const d of replicas) {
      const nc = await env.connectAs('edge', 'stall-replica');
      // Polling often and giving a batch back after 2 s: several passes meet the stalled server.
      relays.push(
        await startRelay({
          nc,
          pool: d.pool,
          schema: SCHEMA,
          prefix: env.prefix,
          log: env.log,
          intervalMs: 100,
          publishTimeoutMs: 2000,
          leaseMs: 4000,
        }),
      );
    }
    // Every copy the relays send (core NATS sees the ones the stream drops as duplicates).
    let copies = 0;
    const wire = env.nc.subscribe(env.prefix + '.' + SUBJECT, { callback: () => copies++ });
    await env.nc.flush();
    const written: string[] = [];
    const write = async (d: Database<EventDb>, i: number) => {
      const id = await d.db.transaction().execute(async (trx) => {
        const event = await addEvent(trx, SUBJECT, { i });
        await sql`insert into tally (event_id, note) values (${event}, 'stalled')`.execute(trx);
        return event;
      });
      written.push(id);
    };
    // Published before the stall: the relays work.
    await write(replicas[0] as Database<EventDb>, -1);
    await eventually(async () => expect(await unpublished(replicas[0] as Database<EventDb>)).toBe(0), 5000);

    const samples: { queryMs: number; writeMs: number; waiting: number; idleInTransaction: number; leased: number }[] =
      [];
    process.kill(env.nats.pid, 'SIGSTOP');
    stopped = true;
    const stallMs = 5000;
    const start = Date.now();
    try {
      // The service's tools that only read or write the database, while the relays wait on NATS:
      // each sample reads on one replica and writes an event (waking its relay) on the other.
      for (let i = 0; Date.now() - start < stallMs; i++) {
        const [reader, writer] = i % 2 ? replicas : [...replicas].reverse();
        let t = Date.now();
        await (reader as Database<EventDb>).pool.query('select 1');
        const queryMs = Date.now() - t;
        t = Date.now();
        await write(writer as Database<EventDb>, i);
        const writeMs = Date.now() - t;
        const { rows } = await admin.query(
          `select count(*)::int as n from ${SCHEMA}.outbox where published_at is null and leased_until > now()`,
        );
        samples.push({
          queryMs,
          writeMs,
          waiting: replicas.reduce((n, d) => n + d.pool.waitingCount, 0),
          idleInTransaction: await idleInTransaction(),
          leased: rows[0].n,
        });
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      process.kill(env.nats.pid, 'SIGCONT');
      stopped = false;
    }
    // No sample found a connection held: queries and writes answered at once, nobody waited for
    // a connection of the pool, no session sat inside a transaction.
    expect(samples.filter((s) => s.queryMs > 500 || s.writeMs > 500)).toEqual([]);
    expect(samples.filter((s) => s.waiting > 0 || s.idleInTransaction > 0)).toEqual([]);
    expect(samples.length).toBeGreaterThan(10);
    // And the relays were at it all along: rows were leased to a pass waiting for its acks.
    expect(samples.filter((s) => s.leased > 0).length).toBeGreaterThan(samples.length / 2);
    const { rows: pending } = await admin.query(
      `select count(*)::int as n from ${SCHEMA}.outbox where published_at is null`,
    );
    expect(pending[0].n).toBeGreaterThan(0);

    // NATS is back: every event goes out, and the stream keeps each once (the passes that timed out
    // sent theirs too; the stream dropped the copies by Nats-Msg-Id).
    await eventually(async () => expect(await unpublished(replicas[0] as Database<EventDb>)).toBe(0), 15_000, 100);
    const jsm = await env.nc.jetstreamManager();
    const names = streamNames(env.prefix);
    const info = await jsm.streams.info(names.stream);
    const stored: string[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(names.stream, { seq }).catch(() => null);
      if (m?.subject === names.subject(SUBJECT)) stored.push(m.header.get('Nats-Msg-Id'));
    }
    expect(stored.length).toBe(written.length);
    await env.nc.flush();
    wire.unsubscribe();
    expect(copies).toBeGreaterThan(written.length);
    expect([...stored].sort()).toEqual([...written].sort());
  }, 60_000);

  it('polls an empty outbox with one statement: no BEGIN, no COMMIT, no connection kept', async () => {
    const d = replica();
    const sent: string[] = [];
    // Every statement of the pool's clients, from the first connection on.
    d.pool.on('connect', (client) => {
      const original = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const first = args[0] as string | { text?: string };
        sent.push(typeof first === 'string' ? first : (first?.text ?? ''));
        return original(...args);
      };
    });
    await eventually(async () => expect(await unpublished(d)).toBe(0), 15_000, 100);
    sent.length = 0;
    const relay = await startRelay({
      nc: env.nc,
      pool: d.pool,
      schema: SCHEMA,
      prefix: env.prefix,
      log: env.log,
      intervalMs: 50,
    });
    relays.push(relay);
    await new Promise((r) => setTimeout(r, 600));
    await relay.stop();
    const polls = sent.filter((text) => !/^\s*(un)?listen /i.test(text));
    expect(polls.length).toBeGreaterThanOrEqual(5);
    for (const text of polls) {
      expect(text).not.toMatch(/\b(begin|commit)\b/i);
      expect(text).toMatch(/^set local synchronous_commit = off;\s+update outbox set leased_until/);
    }
    // Between polls the pool holds nothing checked out (the LISTEN is on the direct connection).
    expect(d.pool.totalCount).toBe(d.pool.idleCount);
  });
});
