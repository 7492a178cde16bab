import { addEvent, type Database, migrate, openDatabase, PLATFORM_MIGRATIONS, startRelay } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgBouncer, serverConnections, startPgBouncer } from '../../../test/support/pgbouncer.ts';

// What the platform does behind PgBouncer 1.18 in transaction mode: no named prepared statements,
// no session lock in the migrations, LISTEN on a direct connection.
const SCHEMA = 'pooled';
let env: TestEnv;
let bouncer: PgBouncer;
const opened: Database<unknown>[] = [];

const open = (settings: Parameters<typeof openDatabase>[2]) => {
  const d = openDatabase<unknown>(bouncer.url(SCHEMA), SCHEMA, settings);
  opened.push(d);
  return d;
};

beforeAll(async () => {
  env = await createTestEnv('platform-pooler', { nats: 'open' });
  bouncer = await startPgBouncer({
    database: new URL(env.databaseUrl).pathname.slice(1),
    schemas: [SCHEMA],
    poolSize: 2,
  });
});

afterAll(async () => {
  for (const d of opened) await d.close().catch(() => {});
  await env?.cleanup();
  await bouncer?.cleanup();
});

const named = { name: 'pooled_probe', text: 'select $1::int + 1 as n' };

describe('behind PgBouncer in transaction mode', () => {
  it('migrates from two pools at once (transaction-level locks only)', async () => {
    const [a, b] = [open({ max: 3, preparedStatements: false }), open({ max: 3, preparedStatements: false })];
    const results = await Promise.all([a, b].map((d) => migrate(d.pool, SCHEMA, [PLATFORM_MIGRATIONS])));
    expect(results.flat().length).toBeGreaterThan(0);
    expect(new Set(results.flat()).size).toBe(results.flat().length);
    const { rows } = await a.pool.query('select current_schema() as s, count(*)::int as n from schema_migrations');
    expect(rows[0]).toEqual({ s: SCHEMA, n: results.flat().length });
  });

  it('runs named statements unnamed when told to, on many connections through two server ones', async () => {
    const d = open({ max: 6, preparedStatements: false });
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => d.pool.query({ ...named, values: [i] })));
    expect(replies.map((r) => r.rows[0].n)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(await serverConnections(bouncer.role)).toBeLessThanOrEqual(2);
  });

  it('breaks with named statements left on (why DB_PREPARED_STATEMENTS exists)', async () => {
    const d = open({ max: 6, preparedStatements: true });
    const settled = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => d.pool.query({ ...named, values: [i] })),
    );
    expect(settled.some((s) => s.status === 'rejected')).toBe(true);
  });

  it('listens for outbox commits on the direct URL, so a commit wakes the relay at once', async () => {
    const d = openDatabase<unknown>(bouncer.url(SCHEMA), SCHEMA, {
      max: 3,
      preparedStatements: false,
      directUrl: env.databaseUrl,
    });
    opened.push(d);
    const relay = await startRelay({
      nc: env.nc,
      pool: d.pool,
      schema: SCHEMA,
      prefix: env.prefix,
      log: env.log,
      intervalMs: 600_000,
    });
    try {
      expect(relay.listening).toBe(true);
      const admin = new pg.Client({ connectionString: env.databaseUrl });
      await admin.connect();
      const listeners = await admin.query(
        `select usename from pg_stat_activity where datname = current_database() and query ilike 'listen %'`,
      );
      await admin.end();
      // The LISTEN is held by PostgreSQL's own user on the direct connection, not by the pooler's role.
      expect(listeners.rows.map((r) => r.usename)).toEqual(['postgres']);
      await d.db.transaction().execute((trx) => addEvent(trx, 'evt.pooled.probe', { n: 1 }).then(() => undefined));
      // No poll for ten minutes: only the NOTIFY on the direct connection can have published it.
      await eventually(async () => {
        const { rows } = await d.pool.query('select count(*)::int as n from outbox where published_at is null');
        expect(rows[0].n).toBe(0);
      }, 5_000);
    } finally {
      await relay.stop();
    }
  });
});
