import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { KnowledgeDb } from '../db.ts';

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

/** The query parsed with each configuration, its words OR-ed (ranking rewards notes with more of them). */
function tsquery(q: string, configs: string[]): RawBuilder<unknown> {
  const parts = configs.map((c) => sql`replace(plainto_tsquery(${c}::regconfig, ${q})::text, ' & ', ' | ')`);
  return sql`(select string_agg(nullif(part, ''), ' | ')::tsquery from unnest(array[${sql.join(parts)}]) as part)`;
}

/** Below this cosine similarity a vector neighbour is noise, not a match (every note is someone's nearest). */
export const MIN_COSINE = 0.3;

/** All SQL of search: three ranked id lists (full text, trigram, vector). */
export class SearchRepository {
  constructor(private readonly db: Kysely<KnowledgeDb>) {}

  async fullText(q: string, configs: string[], scope: Scope, limit: number): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      with q as (select ${tsquery(q, configs)} as query)
      select n.id from notes n, q
      where q.query is not null and n.tsv @@ q.query and ${scopeSql(scope)}
      order by ts_rank_cd(n.tsv, q.query) desc, n.updated_at desc, n.id
      limit ${limit}`.execute(this.db);
    return rows.map((r) => r.id);
  }

  async trigram(q: string, scope: Scope, limit: number): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      select id from notes
      where ${q} <% search_text and ${scopeSql(scope)}
      order by word_similarity(${q}, search_text) desc, id
      limit ${limit}`.execute(this.db);
    return rows.map((r) => r.id);
  }

  async vector(v: number[], scope: Scope, limit: number): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      select id from notes
      where embedding is not null and ${scopeSql(scope)} and cosine(embedding, ${v}::real[]) >= ${MIN_COSINE}
      order by cosine(embedding, ${v}::real[]) desc, id
      limit ${limit}`.execute(this.db);
    return rows.map((r) => r.id);
  }
}
