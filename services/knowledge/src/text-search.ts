import type { Logger } from '@studium/platform';
import type pg from 'pg';
import type { Lang } from './domain/language.ts';

/** Text search configurations by language; Kazakh is `simple` where the hunspell-kk dictionary is missing. */
export interface TextSearch {
  /** The configuration a note of this language is indexed with. */
  configFor(lang: Lang): string;
  /** Every configuration a query is parsed with (a query matches notes of any language). */
  queryConfigs: string[];
  kazakh: boolean;
}

/**
 * Makes the `knowledge.kazakh` configuration from the ispell files `kk_kz.dict`/`kk_kz.affix`
 * in PostgreSQL's tsearch_data (scripts/ensure-kazakh.ts puts them there from Debian's
 * hunspell-kk). Where they are missing or cannot load, Kazakh notes use `simple` and search
 * still works. Serialised by an advisory lock, so replicas starting together do not race.
 */
export async function setupTextSearch(pool: pg.Pool, schema: string, log: Logger): Promise<TextSearch> {
  const client = await pool.connect();
  let kazakh = false;
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [`${schema}:kazakh`]);
    const { rowCount } = await client.query(
      `select 1 from pg_ts_config where cfgname = 'kazakh' and cfgnamespace = $1::regnamespace`,
      [schema],
    );
    if (rowCount) kazakh = true;
    else {
      try {
        await client.query('begin');
        await client.query(
          `create text search dictionary ${schema}.kk_hunspell (template = ispell, dictfile = kk_kz, afffile = kk_kz)`,
        );
        await client.query(`create text search configuration ${schema}.kazakh (copy = simple)`);
        await client.query(
          `alter text search configuration ${schema}.kazakh alter mapping for word, hword, hword_part with ${schema}.kk_hunspell, simple`,
        );
        await client.query('commit');
        kazakh = true;
      } catch (err) {
        await client.query('rollback');
        log.warn(
          { err: (err as Error).message },
          'Kazakh dictionary unavailable: Kazakh notes use the simple configuration',
        );
      }
    }
  } finally {
    await client.query('select pg_advisory_unlock(hashtext($1))', [`${schema}:kazakh`]).catch(() => {});
    client.release();
  }
  const kk = kazakh ? `${schema}.kazakh` : 'simple';
  return {
    kazakh,
    configFor: (lang) => (lang === 'ru' ? 'russian' : lang === 'kk' ? kk : 'simple'),
    queryConfigs: kazakh ? ['russian', kk, 'simple'] : ['russian', 'simple'],
  };
}

/**
 * PostgreSQL loads an ispell dictionary once per connection (about half a second for hunspell-kk),
 * at the first use of the configuration. Connections are therefore kept (no idle timeout) and
 * `connections` of them are opened and warmed at start, so no tool call pays the load.
 */
export async function warmConnections(pool: pg.Pool, ts: TextSearch, connections: number): Promise<void> {
  if (!ts.kazakh) return;
  (pool as unknown as { options: { idleTimeoutMillis: number } }).options.idleTimeoutMillis = 0;
  const clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
  try {
    await Promise.all(clients.map((c) => c.query(`select to_tsvector($1::regconfig, 'бастау')`, [ts.configFor('kk')])));
  } finally {
    for (const c of clients) c.release();
  }
}
