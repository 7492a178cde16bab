import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { KnowledgeDb } from '../db.ts';
import { vectorLiteral } from '../vector-store.ts';

/** Which notes a search may return: shared notes of the projects, and the owner's memory. */
export interface Scope {
  projects: string[];
  owner: string;
}

function scopeSql(s: Scope): RawBuilder<boolean> {
  const projects = s.projects.length ? s.projects : ['00000000-0000-0000-0000-000000000000'];
  return sql<boolean>`deleted_at is null and (
    (class = 'user-doc' and project = any(${projects}::uuid[]))
    or (class = 'agent-memory' and owner = ${s.owner} and (project is null or project = any(${projects}::uuid[]))))`;
}

/**
 * The query parsed with each configuration and OR-ed across them (a query matches notes of any
 * language); within one configuration its words are AND-ed (`all`) or OR-ed (`any`).
 */
function tsquery(q: string, configs: string[], mode: 'all' | 'any'): RawBuilder<unknown> {
  const parts = configs.map((c) =>
    mode === 'all'
      ? sql`plainto_tsquery(${c}::regconfig, ${q})::text`
      : sql`replace(plainto_tsquery(${c}::regconfig, ${q})::text, ' & ', ' | ')`,
  );
  return sql`(select string_agg('(' || part || ')', ' | ')::tsquery from unnest(array[${sql.join(parts)}]) as part where part <> '')`;
}

/** At most this many full-text matches are ranked (a word in half the notes must not rank them all). */
export const RANK_CANDIDATES = 1000;

/** Below this cosine similarity a vector neighbour is noise, not a match (every note is someone's nearest). */
export const MIN_COSINE = 0.3;

/** All SQL of search: three ranked id lists (full text, trigram, vector). */
export class SearchRepository {
  constructor(private readonly db: Kysely<KnowledgeDb>) {}

  async fullText(q: string, configs: string[], scope: Scope, limit: number, mode: 'all' | 'any'): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      with q as (select ${tsquery(q, configs, mode)} as query),
      hits as (
        select n.id, n.tsv, n.updated_at from notes n, q
        where q.query is not null and n.tsv @@ q.query and ${scopeSql(scope)}
        limit ${RANK_CANDIDATES})
      select hits.id from hits, q
      order by ts_rank(hits.tsv, q.query) desc, hits.updated_at desc, hits.id
      limit ${limit}`.execute(this.db);
    return rows.map((r) => r.id);
  }

  async trigram(q: string, scope: Scope, limit: number): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      select id from notes
      where search_text %> ${q} and ${scopeSql(scope)}
      order by word_similarity(${q}, search_text) desc, id
      limit ${limit}`.execute(this.db);
    return rows.map((r) => r.id);
  }

  /**
   * Nearest notes by cosine similarity: pgvector's operator when the column exists, else the SQL
   * function. Only vectors of the query's dimension are compared (another embedding model's
   * vectors are skipped, not an error). pgvector's cosine distance is NaN for a zero vector and
   * PostgreSQL orders NaN above every number, so the threshold is written on the distance
   * (`<= 1 - MIN_COSINE`), which NaN fails, as the SQL function's 0 for a zero vector does.
   */
  async vector(v: number[], scope: Scope, limit: number, pgvector = false): Promise<string[]> {
    const { rows } = pgvector
      ? await sql<{ id: string }>`
          select id from notes
          where embedding_vec is not null and vector_dims(embedding_vec) = ${v.length} and ${scopeSql(scope)}
            and (embedding_vec <=> ${vectorLiteral(v)}::vector) <= ${1 - MIN_COSINE}
          order by embedding_vec <=> ${vectorLiteral(v)}::vector, id
          limit ${limit}`.execute(this.db)
      : await sql<{ id: string }>`
          select id from notes
          where embedding is not null and cardinality(embedding) = ${v.length} and ${scopeSql(scope)}
            and cosine(embedding, ${v}::real[]) >= ${MIN_COSINE}
          order by cosine(embedding, ${v}::real[]) desc, id
          limit ${limit}`.execute(this.db);
    return rows.map((r) => r.id);
  }
}
