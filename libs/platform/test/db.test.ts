import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  classifyPgError,
  createMetrics,
  type Database,
  ensureDatabase,
  migrate,
  openDatabase,
  queriesSentSoFar,
  StartupError,
} from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import type { PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let env: TestEnv;
let root: string;
const opened: Database<unknown>[] = [];

/** Writes a directory of migration files and returns its path. */
async function migrations(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const [file, body] of Object.entries(files)) await writeFile(join(dir, file), body);
  return dir;
}

function open(schema: string): Database<unknown> {
  const database = openDatabase<unknown>(env.databaseUrl, schema, 3);
  opened.push(database);
  return database;
}

async function rows<T>(database: Database<unknown>, query: string): Promise<T[]> {
  return (await database.pool.query(query)).rows as T[];
}

beforeAll(async () => {
  env = await createTestEnv('platform-db', { nats: 'open' });
  root = await mkdtemp(join(tmpdir(), 'studium-migrations-'));
});

afterAll(async () => {
  for (const d of opened) await d.close().catch(() => {});
  await rm(root, { recursive: true, force: true });
  await env?.cleanup();
});

describe('migrate', () => {
  it('applies the files of each directory in order, once, and records them', async () => {
    const first = await migrations('order-a', {
      '002_second.sql': "insert into trail (name) values ('a/002');",
      '001_first.sql':
        "create table trail (seq serial primary key, name text not null);\ninsert into trail (name) values ('a/001');",
      'README.md': 'not a migration',
    });
    const second = await migrations('order-b', { '0001_third.sql': "insert into trail (name) values ('b/0001');" });
    const database = open('order_test');
    const applied = await migrate(database.pool, 'order_test', [first, second]);
    expect(applied).toEqual(['001_first.sql', '002_second.sql', '0001_third.sql']);
    expect((await rows<{ name: string }>(database, 'select name from trail order by seq')).map((r) => r.name)).toEqual([
      'a/001',
      'a/002',
      'b/0001',
    ]);
    const recorded = await rows<{ name: string }>(database, 'select name from order_test.schema_migrations');
    expect(recorded.map((r) => r.name).sort()).toEqual(['0001_third.sql', '001_first.sql', '002_second.sql']);
    expect(await migrate(database.pool, 'order_test', [first, second])).toEqual([]);
    expect(await rows(database, 'select name from trail')).toHaveLength(3);
  });

  it('lets two concurrent runs on one schema apply each file exactly once', async () => {
    const dir = await migrations('race', {
      '0001_slow.sql': 'create table raced (id int primary key);\nselect pg_sleep(0.3);',
      '0002_more.sql': 'create table raced_more (id int primary key);',
    });
    const [a, b] = [open('race_test'), open('race_test')];
    const results = await Promise.all([migrate(a.pool, 'race_test', [dir]), migrate(b.pool, 'race_test', [dir])]);
    // Each file is applied by one run only (each in its own transaction under the lock, so the
    // runs may share the files), and in name order.
    expect(results.flat().sort()).toEqual(['0001_slow.sql', '0002_more.sql']);
    const order = await rows<{ name: string }>(a, 'select name from schema_migrations order by applied_at, name');
    expect(order.map((r) => r.name)).toEqual(['0001_slow.sql', '0002_more.sql']);
  });

  it('rolls a failing file back and names it; a fixed file applies on the next run', async () => {
    const dir = await migrations('failing', {
      '0001_ok.sql': 'create table kept (id int);',
      '0002_bad.sql': 'create table half_done (id int);\nselect 1 / 0;',
    });
    const database = open('fail_test');
    await expect(migrate(database.pool, 'fail_test', [dir])).rejects.toThrow(
      /fail_test\/0002_bad\.sql.*division by zero/,
    );
    const tables = await rows<{ table_name: string }>(
      database,
      "select table_name from information_schema.tables where table_schema = 'fail_test' order by 1",
    );
    expect(tables.map((t) => t.table_name)).toEqual(['kept', 'schema_migrations']);
    expect((await rows<{ name: string }>(database, 'select name from schema_migrations')).map((r) => r.name)).toEqual([
      '0001_ok.sql',
    ]);
    await writeFile(join(dir, '0002_bad.sql'), 'create table half_done (id int);');
    expect(await migrate(database.pool, 'fail_test', [dir])).toEqual(['0002_bad.sql']);
  });

  it('a file PostgreSQL refuses is a start-up error at once, not a database still to wait for', async () => {
    const dir = await migrations('refused', { '0001_bad.sql': 'select 1 / 0;' });
    const database = open('refused_test');
    const err = await migrate(database.pool, 'refused_test', [dir]).catch((e) => e);
    const classified = classifyPgError(err, env.databaseUrl);
    expect(classified).toBeInstanceOf(StartupError);
    expect((classified as Error).message).toMatch(/refused_test\/0001_bad\.sql failed: division by zero/);
    // A connection lost midway stays a reason to wait and retry.
    const lost = Object.assign(new Error('migration x/0001.sql failed: terminating connection'), {
      code: '57P01',
      migration: true,
    });
    expect(classifyPgError(lost, env.databaseUrl)).toBe(lost);
  });
});

describe('openDatabase', () => {
  it('binds search_path to the schema, so unqualified names are the schema’s own', async () => {
    const dir = await migrations('bound', { '0001_t.sql': 'create table things (id int primary key);' });
    const database = open('bound_test');
    await migrate(database.pool, 'bound_test', [dir]);
    const fresh = open('bound_test');
    expect((await rows<{ search_path: string }>(fresh, 'show search_path'))[0].search_path).toBe('bound_test');
    await sql`insert into things (id) values (7)`.execute(fresh.db);
    expect(await rows(fresh, 'select id from bound_test.things')).toEqual([{ id: 7 }]);
    await expect(rows(fresh, 'select id from public.things')).rejects.toThrow(/does not exist/);
  });

  it('rejects schema and database names that are not plain identifiers', async () => {
    for (const bad of ['Upper', 'with-dash', 'x;drop schema public', 'a b', '1abc', '', 'q"uote']) {
      expect(() => openDatabase(env.databaseUrl, bad)).toThrow(/not a safe SQL identifier/);
    }
    const database = open('guard_test');
    await expect(migrate(database.pool, 'x"; drop table y; --', [])).rejects.toThrow(/not a safe SQL identifier/);
    const url = new URL(env.databaseUrl);
    url.pathname = '/bad-name';
    await expect(ensureDatabase(url.toString())).rejects.toThrow(/not a safe SQL identifier/);
  });

  it('counts every statement its pools send, BEGIN and COMMIT with them, on /metrics', async () => {
    const database = open('counted_test');
    await database.pool.query('select 1');
    const before = queriesSentSoFar();
    await database.pool.query('select 1');
    await database.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await sql`select 2`.execute(trx);
    });
    // A failing statement is a round trip too, and so is its ROLLBACK.
    await expect(
      database.db.transaction().execute(async (trx) => {
        await sql`select 1 / 0`.execute(trx);
      }),
    ).rejects.toThrow(/division by zero/);
    expect(queriesSentSoFar() - before).toBe(1 + 4 + 3);
    const text = await createMetrics('test').metrics();
    const scraped = Number(/^studium_db_queries_total\{[^}]*\} (\d+)/m.exec(text)?.[1]);
    expect(scraped).toBe(queriesSentSoFar());
  });
});

describe('prepared statements', () => {
  type Db = { items: { id: number; n: number } };
  async function items(schema: string, prepared = true) {
    const database = openDatabase<Db>(env.databaseUrl, schema, { max: 1, preparedStatements: prepared });
    opened.push(database as Database<unknown>);
    await database.pool.query(`create schema if not exists ${schema}`);
    await database.pool.query('create table items (id int primary key, n int not null)');
    await database.pool.query('insert into items values (1, 10), (2, 20)');
    return database;
  }
  /** The statements the pool's one connection holds prepared. */
  const preparedOn = async (database: Database<Db>) =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(database.db)).rows.map(
      (r) => r.statement,
    );

  it('a statement run again is prepared once per connection; a * column list and a pooler pool never are', async () => {
    const database = await items('prepared_test');
    for (let i = 0; i < 5; i++) {
      await database.db.selectFrom('items').select(['id', 'n']).where('id', '=', 1).execute();
      await database.db.selectFrom('items').selectAll().where('id', '=', 2).execute();
    }
    const held = await preparedOn(database);
    expect(held.filter((s) => s.includes('select "id", "n" from "items"'))).toHaveLength(1);
    expect(held.filter((s) => s.includes('select * from "items"'))).toHaveLength(0);
    const pooled = await items('prepared_pooler_test', false);
    for (let i = 0; i < 5; i++) await pooled.db.selectFrom('items').select(['n']).where('id', '=', 1).execute();
    expect(await preparedOn(pooled)).toEqual([]);
  });

  it('a statement whose row type a migration changed runs again unnamed, at once outside a transaction', async () => {
    const database = await items('prepared_change_test');
    const read = () => database.db.selectFrom('items').select(['id', 'n']).where('n', '>', 0).orderBy('id').execute();
    for (let i = 0; i < 5; i++) await read();
    // Another replica's migration widens the column the prepared statement returns.
    await database.pool.query('alter table items alter column n type bigint');
    expect(await read()).toEqual([
      { id: 1, n: 10 },
      { id: 2, n: 20 },
    ]);
    // Inside a transaction the refusal fails that transaction once; the text is unnamed from then on.
    const inTransaction = () =>
      database.db.transaction().execute((trx) => trx.selectFrom('items').select(['n']).where('id', '=', 2).execute());
    for (let i = 0; i < 5; i++) await inTransaction();
    await database.pool.query('alter table items alter column n type numeric');
    await expect(inTransaction()).rejects.toThrow(/cached plan must not change result type/);
    expect(await inTransaction()).toEqual([{ n: '20' }]);
  });

  it('a statement named by its repository gets the same fallback when a migration changed its row type', async () => {
    const database = await items('prepared_own_name_test');
    const read = () =>
      database.pool.query<{ n: number | string }>({
        name: 'items_own_name',
        text: 'select n from items where id = $1',
        values: [1],
      });
    expect((await read()).rows).toEqual([{ n: 10 }]);
    expect(await preparedOn(database)).toEqual([expect.stringContaining('select n from items where id = $1')]);
    await database.pool.query('alter table items alter column n type numeric');
    // Prepared under its own name, the statement would fail on this connection from now on.
    expect((await read()).rows).toEqual([{ n: '10' }]);
    expect((await read()).rows).toEqual([{ n: '10' }]);
    // A named config that brings its own callback is answered through it, as pg does.
    const client = await database.pool.connect();
    try {
      const rows = await new Promise((resolve, reject) =>
        client.query(
          { name: 'items_callback', text: 'select n from items where id = $1', values: [2] },
          (err: Error | null, res: { rows: unknown[] }) => (err ? reject(err) : resolve(res.rows)),
        ),
      );
      expect(rows).toEqual([{ n: '20' }]);
    } finally {
      client.release();
    }
  });

  it('a prepared parameter typed by a column a migration widened runs again unnamed with the new type', async () => {
    const database = await items('prepared_param_test');
    const put = (id: number, n: number) =>
      database.db
        .insertInto('items')
        .values({ id, n })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    for (let i = 0; i < 5; i++) await put(10 + i, i);
    await database.pool.query('alter table items alter column n type bigint');
    // The prepared statement's parameter is still an integer: 2^31 fails with 22003, then runs unnamed.
    await put(20, 2 ** 31);
    const { rows } = await database.pool.query('select n from items where id = 20');
    expect(rows).toEqual([{ n: 2 ** 31 }]);
  });

  it('a statement of a transaction is never run again after its COMMIT was already sent (pipelined)', async () => {
    const database = await items('prepared_pipeline_test');
    const text = 'insert into items (id, n) values ($1, $2)';
    for (let i = 0; i < 5; i++) await database.pool.query(text, [30 + i, i]);
    await database.pool.query('alter table items alter column n type bigint');
    const client = await database.pool.connect();
    try {
      // pg queues these on the connection: the COMMIT is sent before the insert's error comes back.
      const [, insert, commit] = await Promise.allSettled([
        client.query('begin'),
        client.query(text, [40, 2 ** 31]),
        client.query('commit'),
      ]);
      expect(insert.status).toBe('rejected');
      // The transaction failed, so its COMMIT rolled back; the insert must not run on its own after it.
      expect(commit).toMatchObject({ status: 'fulfilled', value: { command: 'ROLLBACK' } });
    } finally {
      client.release();
    }
    const { rows } = await database.pool.query('select n from items where id = 40');
    expect(rows).toEqual([]);
  });

  /** How often the connection planned `text` as a prepared statement (an unnamed run counts nothing). */
  const plannedRuns = async (client: PoolClient, text: string) =>
    (
      await client.query<{ n: number }>(
        'select (generic_plans + custom_plans)::int as n from pg_prepared_statements where statement = $1',
        [text],
      )
    ).rows[0]?.n ?? 0;

  it('a statement that fails alone with a data error of its own keeps its name', async () => {
    const database = await items('prepared_own_error_test');
    const client = await database.pool.connect();
    const text = 'select $1::int / $2::int as q';
    const runs = () => plannedRuns(client, text);
    try {
      for (let i = 0; i < 3; i++) await client.query(text, [4, 2]);
      const before = await runs();
      expect(before).toBe(1);
      // Named, it fails with 22012 (a code a widened column can cause too); unnamed, it fails the same way.
      await expect(client.query(text, [1, 0])).rejects.toThrow(/division by zero/);
      await expect(client.query(text, [1, 0])).rejects.toThrow(/division by zero/);
      expect((await client.query(text, [9, 3])).rows).toEqual([{ q: 3 }]);
      // The run after the errors went to the prepared statement (planned there, unlike an unnamed
      // run): its name was given back. (The errors themselves fail while planning, uncounted.)
      expect(await runs()).toBe(before + 1);
    } finally {
      client.release();
    }
  });

  it('gives no name back when another connection took it away meanwhile (that one may have been a real outdated plan)', async () => {
    const database = openDatabase<Db>(env.databaseUrl, 'prepared_race_test', { max: 2 });
    opened.push(database as Database<unknown>);
    const [a, b] = [await database.pool.connect(), await database.pool.connect()];
    const text = 'select $1::int / $2::int as q, 1 as race';
    const runs = () => plannedRuns(a, text);
    try {
      for (let i = 0; i < 3; i++) await a.query(text, [4, 2]);
      await b.query(text, [4, 2]);
      const before = await runs();
      // Both are sent named before either error is back: each forget finds the other's.
      const both = await Promise.allSettled([a.query(text, [1, 0]), b.query(text, [1, 0])]);
      expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      await a.query(text, [9, 3]);
      expect(await runs()).toBe(before);
    } finally {
      a.release();
      b.release();
    }
  });

  it('names at most 500 texts in all, also when named texts fail and lose their names', async () => {
    const database = await items('prepared_bound_test');
    // One connection all along (pool.query would drop it after each error, and its statements with it).
    const client = await database.pool.connect();
    try {
      // Each text is named on its third run, then fails inside a transaction with a data error
      // (22012), where it cannot be told from a plan's, and loses its name.
      for (let k = 0; k < 510; k++) {
        const text = `select $1::int / $2::int as q, ${k} as k`;
        for (let i = 0; i < 3; i++) await client.query(text, [1, 1]);
        await client.query('begin');
        await expect(client.query(text, [1, 0])).rejects.toThrow(/division by zero/);
        await client.query('rollback');
      }
      const { rows } = await client.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements');
      expect(rows[0]?.n).toBeLessThanOrEqual(500);
    } finally {
      client.release();
    }
  });
});
