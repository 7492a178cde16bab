import { createLogger, type Database, openDatabase } from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgBouncer, startPgBouncer } from '../../../test/support/pgbouncer.ts';
import { setupTextSearch, warmConnections } from '../src/text-search.ts';

// setupTextSearch runs at every start of every replica, through PgBouncer in transaction mode in
// docker-compose and k8s: a session-level advisory lock taken there lands on one pooled server
// connection and its unlock may run on another, leaving the lock held (and the next start waiting).
const SCHEMA = 'kb_pooled';
let env: TestEnv;
let bouncer: PgBouncer;
const opened: Database<unknown>[] = [];
const log = createLogger('text-search-pooler', 'silent');

beforeAll(async () => {
  env = await createTestEnv('kb-pooler');
  const direct = new pg.Client({ connectionString: env.databaseUrl });
  await direct.connect();
  await direct.query(`create schema if not exists ${SCHEMA}`);
  await direct.end();
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

/** Advisory locks granted in the test's database right now (none should outlive a start). */
async function advisoryLocks(): Promise<number> {
  const c = new pg.Client({ connectionString: env.databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query(
      `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
       where l.locktype = 'advisory' and l.granted and d.datname = current_database()`,
    );
    return rows[0].n;
  } finally {
    await c.end();
  }
}

describe('setupTextSearch behind PgBouncer in transaction mode', () => {
  it('replicas starting together leave no advisory lock behind and all finish', async () => {
    const pools = Array.from({ length: 4 }, () => {
      const d = openDatabase<unknown>(bouncer.url(SCHEMA), SCHEMA, { max: 2, preparedStatements: false });
      opened.push(d);
      return d;
    });
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(pools.map((d) => setupTextSearch(d.pool, SCHEMA, log)));
      expect(new Set(results.map((r) => r.kazakh)).size).toBe(1);
      expect(await advisoryLocks()).toBe(0);
    }
  }, 60_000);
});

describe('warmConnections', () => {
  it("warms at most the pool's connections and returns (more than the pool holds would wait forever)", async () => {
    const d = openDatabase<unknown>(env.databaseUrl, SCHEMA, { max: 2 });
    opened.push(d);
    const ts = await setupTextSearch(d.pool, SCHEMA, log);
    // `npm test` installs hunspell-kk first (scripts/ensure-services.ts).
    expect(ts.hunspell).toBe(`${SCHEMA}.kazakh`);
    const warmed = await Promise.race([
      warmConnections(d.pool, ts, 4),
      new Promise<'hung'>((r) => setTimeout(() => r('hung'), 5000)),
    ]);
    expect(warmed).toBe(2);
    expect(d.pool.totalCount).toBe(2);
  });
});
