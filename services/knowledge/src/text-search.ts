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
