import type { Logger } from '@studium/platform';
import type pg from 'pg';

/**
 * The text search configurations of the index (see the service README, "How a note is indexed"):
 * every note and every query word goes through `russian` (Snowball Russian, and Snowball English
 * for Latin words), the service's Kazakh stemmer and, where installed, hunspell-kk.
 */
export interface TextSearch {
  /** The hunspell-kk configuration (`<schema>.kazakh`), or null where the dictionary is missing. */
  hunspell: string | null;
  /** Whether the hunspell-kk dictionary is loaded (the Kazakh stemmer works without it). */
  kazakh: boolean;
}

/**
 * Makes the `knowledge.kazakh` configuration from the ispell files `kk_kz.dict`/`kk_kz.affix`
 * in PostgreSQL's tsearch_data (scripts/ensure-kazakh.ts puts them there from Debian's
 * hunspell-kk). Where they are missing or cannot load, the index goes without their lemmas
 * (the service's Kazakh stems still serve). Serialised by a transaction-level advisory lock, so
 * replicas starting together do not race, also through a transaction pooler.
 */
export async function setupTextSearch(pool: pg.Pool, schema: string, log: Logger): Promise<TextSearch> {
  const client = await pool.connect();
  let kazakh = false;
  try {
    // One transaction under a transaction-level lock: behind PgBouncer in transaction mode a
    // session lock would stay on whichever server connection took it, and its unlock could run on
    // another (replicas would then race, and the next start could wait for ever).
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtext($1))', [`${schema}:kazakh`]);
    const { rowCount } = await client.query(
      `select 1 from pg_ts_config where cfgname = 'kazakh' and cfgnamespace = $1::regnamespace`,
      [schema],
    );
    if (rowCount) kazakh = true;
    else {
      try {
        await client.query('savepoint kazakh');
        await client.query(
          `create text search dictionary ${schema}.kk_hunspell (template = ispell, dictfile = kk_kz, afffile = kk_kz)`,
        );
        await client.query(`create text search configuration ${schema}.kazakh (copy = simple)`);
        await client.query(
          `alter text search configuration ${schema}.kazakh alter mapping for word, hword, hword_part with ${schema}.kk_hunspell, simple`,
        );
        await client.query('release savepoint kazakh');
        kazakh = true;
      } catch (err) {
        await client.query('rollback to savepoint kazakh');
        log.warn(
          { err: (err as Error).message },
          'Kazakh dictionary unavailable: the index goes without hunspell-kk lemmas',
        );
      }
    }
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  return { kazakh, hunspell: kazakh ? `${schema}.kazakh` : null };
}

/**
 * PostgreSQL loads an ispell dictionary once per connection (about half a second for hunspell-kk),
 * at the first use of the configuration. Connections are therefore kept (no idle timeout) and
 * `connections` of them (at most the pool's size: asking for more at once would wait forever) are
 * opened and warmed at start, so no tool call pays the load. Returns how many were warmed.
 */
export async function warmConnections(pool: pg.Pool, ts: TextSearch, connections: number): Promise<number> {
  if (!ts.hunspell) return 0;
  const options = (pool as unknown as { options: { idleTimeoutMillis: number; max: number } }).options;
  options.idleTimeoutMillis = 0;
  const count = Math.min(connections, options.max);
  const clients = await Promise.all(Array.from({ length: count }, () => pool.connect()));
  try {
    await Promise.all(clients.map((c) => c.query(`select to_tsvector($1::regconfig, 'бастау')`, [ts.hunspell])));
  } finally {
    for (const c of clients) c.release();
  }
  return count;
}
