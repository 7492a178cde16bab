import type { Logger } from '@studium/platform';
import type pg from 'pg';

/**
 * Where pgvector is available, vectors are also kept in a `vector` column (`embedding_vec`) and
 * compared with its cosine distance operator; elsewhere (these machines) the `real[]` column and
 * the SQL `cosine` function serve. True when the pgvector column is in use.
 *
 * - Available means PostgreSQL has the extension's files (`pg_available_extensions`); without
 *   them nothing is tried.
 * - The extension is created in the service's schema (the pool's search_path). Creating it needs
 *   the right to (a superuser, or a database owner where the extension is trusted); if it is
 *   refused, or the extension already lives in another schema (its type is then not on the search
 *   path and the column cannot be made), the plain column is used and a warning is logged.
 * - Serialised by a transaction-level advisory lock: replicas starting together must not race on `create
 *   extension` (the loser would fail and run without the column while the others use it).
 * - Vectors stored before pgvector came (plain column only) are copied into the new column.
 */
export async function setupVectorStore(pool: pg.Pool, schema: string, log: Logger): Promise<boolean> {
  const { rowCount } = await pool.query(`select 1 from pg_available_extensions where name = 'vector'`);
  if (!rowCount) return false;
  const client = await pool.connect();
  try {
    // One transaction under a transaction-level lock (works through PgBouncer in transaction
    // mode, where a session lock and its unlock may land on different server connections).
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtext($1))', [`${schema}:vector`]);
    await client.query('create extension if not exists vector');
    await client.query(`alter table ${schema}.notes add column if not exists embedding_vec vector`);
    await client.query(
      `update ${schema}.notes set embedding_vec = embedding::vector
        where embedding is not null and cardinality(embedding) > 0 and embedding_vec is null`,
    );
    await client.query('commit');
    return true;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    log.warn({ err: (err as Error).message }, 'pgvector present but unusable here: vectors stay in the plain column');
    return false;
  } finally {
    client.release();
  }
}

/** A vector as pgvector's text input (`[1,2,3]`). */
export function vectorLiteral(v: number[]): string {
  return JSON.stringify(v);
}
