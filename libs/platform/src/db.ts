import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { traceQueries } from './db-tracing.ts';
import type { Logger } from './log.ts';

// Timestamps stay ISO strings end to end; bigint counts become numbers.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (v) => new Date(v).toISOString());
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** A service's database handle: Kysely on a pool whose search_path is the service's own schema. */
export interface Database<DB> {
  db: Kysely<DB>;
  pool: pg.Pool;
  schema: string;
  close(): Promise<void>;
}

/** Opens a pool bound to one schema; services never read another schema. */
export function openDatabase<DB>(url: string, schema: string, max = 10): Database<DB> {
  assertIdentifier(schema);
  const pool = new pg.Pool({ connectionString: url, max, options: `-c search_path=${schema}` });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
  // A checked-out client (a Kysely transaction, the outbox relay) has no pool handler: a lost
  // connection would emit an unhandled 'error' and crash the process. Its queries reject anyway.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    traceQueries(client);
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    schema,
    async close() {
      await db.destroy();
    },
  };
}

/** Creates the database named in the URL when it does not exist (used by `npm start` and tests). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  assertIdentifier(name);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) {
      await client.query(`create database "${name}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created meanwhile by a sibling process
      });
    }
  } finally {
    await client.end();
  }
}

/** Drops a database (tests only). */
export async function dropDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  assertIdentifier(name);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/**
 * Applies the plain SQL files of each directory (in the order given, files in name order), each in its own transaction, under an
 * advisory lock so two replicas starting together never race. Applied names are kept in
 * `<schema>.schema_migrations`.
 */
export async function migrate(pool: pg.Pool, schema: string, dirs: string[], log?: Logger): Promise<string[]> {
  assertIdentifier(schema);
  const files: { name: string; path: string }[] = [];
  for (const dir of dirs) {
    const names = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
    files.push(...names.map((name) => ({ name, path: join(dir, name) })));
  }
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [`studium.migrate.${schema}`]);
    await client.query(`create schema if not exists "${schema}"`);
    await client.query(`set search_path to "${schema}"`);
    await client.query(
      'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())',
    );
    const done = new Set((await client.query('select name from schema_migrations')).rows.map((r) => r.name));
    for (const { name: file, path } of files) {
      if (done.has(file)) continue;
      const sql = await readFile(path, 'utf8');
      await client.query('begin');
      try {
        await client.query(sql);
        await client.query('insert into schema_migrations (name) values ($1)', [file]);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw new Error(`migration ${schema}/${file} failed: ${(err as Error).message}`);
      }
      applied.push(file);
      log?.info({ schema, file }, 'migration applied');
    }
  } finally {
    await client.query('select pg_advisory_unlock(hashtext($1))', [`studium.migrate.${schema}`]).catch(() => {});
    client.release();
  }
  return applied;
}

function assertIdentifier(name: string): void {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a safe SQL identifier: ${name}`);
}

/** The platform's own migrations (outbox, processed events); pass first to {@link migrate} when a service uses them. */
export const PLATFORM_MIGRATIONS = new URL('../migrations', import.meta.url).pathname;
