import { createHash } from 'node:crypto';
import type { Compilable } from 'kysely';
import type pg from 'pg';

const names = new Map<string, string>();

/**
 * Runs a Kysely-built query as a named prepared statement on the pool. The hot read paths
 * (list_catalog, list_my_courses) have semi- and anti-joins whose planning costs as much as their
 * execution; a prepared statement is planned once per connection. The name follows from the SQL
 * text, so each variant of a query gets its own statement.
 */
export async function queryPrepared<R>(pool: pg.Pool, query: Compilable<R>): Promise<R[]> {
  const { sql, parameters } = query.compile();
  let name = names.get(sql);
  if (!name) {
    name = `q_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    names.set(sql, name);
  }
  const res = await pool.query({ name, text: sql, values: parameters as unknown[] });
  return res.rows as R[];
}
