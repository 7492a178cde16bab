import { readFile } from 'node:fs/promises';
import { type Kysely, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import type { ReportingDb } from './db.ts';

const READ_MODEL_SQL = new URL('./read-model.sql', import.meta.url);

/** Schema name of generation `n`. */
export function generationSchema(n: number): string {
  return `reporting_g${n}`;
}

/** The number of a generation schema name. */
export function generationNumber(schema: string): number {
  const m = /^reporting_g(\d+)$/.exec(schema);
  if (!m) throw new Error(`not a generation schema: ${schema}`);
  return Number(m[1]);
}

/** Drops and creates a generation schema with the read-model tables, in the client's open transaction. */
async function writeGenerationSchema(client: pg.PoolClient, schema: string): Promise<void> {
  generationNumber(schema);
  const ddl = await readFile(READ_MODEL_SQL, 'utf8');
  await client.query(`drop schema if exists "${schema}" cascade`);
  await client.query(`create schema "${schema}"`);
  await client.query(`set local search_path to "${schema}"`);
  await client.query(ddl);
}

/** Runs `fn` in one transaction on one client. */
async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** Creates an empty generation schema with the read-model tables. */
export async function createGenerationSchema(pool: pg.Pool, schema: string): Promise<void> {
  await inTransaction(pool, (client) => writeGenerationSchema(client, schema));
}

/**
 * Makes sure a generation exists (the first start creates reporting_g1): one transaction under a
 * transaction-level advisory lock, so it works through a transaction pooler (a session lock taken
 * there would stay on a pooled server connection).
 */
export async function ensureGeneration(_db: Kysely<ReportingDb>, pool: pg.Pool): Promise<string> {
  return inTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock(hashtext($1))', ['studium.reporting.generation']);
    const found = await client.query<{ current: string }>('select current from generation');
    if (found.rows[0]) {
      await upgradeGeneration(client, found.rows[0].current);
      return found.rows[0].current;
    }
    const first = generationSchema(1);
    // The pool's own schema (the search path moves to the generation while its tables are made).
    const home = (await client.query<{ s: string }>('select current_schema() as s')).rows[0].s;
    await writeGenerationSchema(client, first);
    await client.query(`insert into "${home.replaceAll('"', '""')}".generation (current) values ($1)`, [first]);
    return first;
  });
}

/** The generation the tools read now. */
export async function currentGeneration(db: Kysely<ReportingDb>): Promise<string> {
  const row = await db.selectFrom('generation').select('current').executeTakeFirstOrThrow();
  return row.current;
}

/**
 * The generation a live event goes to, read with a share lock: a rebuild's swap (which takes the
 * row for update) waits for this transaction, and this one waits for the swap.
 */
export async function lockedGeneration(trx: Transaction<ReportingDb>): Promise<string> {
  const row = await sql<{ current: string }>`select current from generation where id = 1 for share`.execute(trx);
  const current = row.rows[0]?.current;
  if (!current) throw new Error('reporting: no read-model generation');
  return current;
}

/**
 * Columns added to the read model after a generation was created: added empty to that generation
 * (a rebuild fills them from the stream; new events fill them as they come).
 */
async function upgradeGeneration(client: pg.PoolClient, schema: string): Promise<void> {
  generationNumber(schema);
  await client.query(`alter table "${schema}".courses add column if not exists document jsonb`);
  await client.query(
    `alter table "${schema}".progress add column if not exists lessons_failed integer not null default 0,
      add column if not exists finished boolean not null default false`,
  );
}
