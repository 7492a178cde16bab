import type { Logger } from '@studium/platform';
import type pg from 'pg';

/**
 * Where pgvector is available, vectors are also kept in a `vector` column (`embedding_vec`) and
 * compared with its cosine distance operator; elsewhere (these machines) the `real[]` column and
 * the SQL `cosine` function serve. True when the pgvector column is in use. The extension is
 * created in the service's schema; if it already lives in another schema the type is not on the
 * search path, the column cannot be made, and the plain column is used.
 */
export async function setupVectorStore(pool: pg.Pool, schema: string, log: Logger): Promise<boolean> {
  const { rowCount } = await pool.query(`select 1 from pg_available_extensions where name = 'vector'`);
  if (!rowCount) return false;
  try {
    await pool.query('create extension if not exists vector');
    await pool.query(`alter table ${schema}.notes add column if not exists embedding_vec vector`);
    return true;
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'pgvector present but unusable here: vectors stay in the plain column');
    return false;
  }
}

/** A vector as pgvector's text input (`[1,2,3]`). */
export function vectorLiteral(v: number[]): string {
  return JSON.stringify(v);
}
