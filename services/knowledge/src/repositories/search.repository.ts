import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { KnowledgeDb } from '../db.ts';
import { vectorLiteral } from '../vector-store.ts';

/** Which notes a search may return: shared notes of the projects, and the owner's memory. */
export interface Scope {
  projects: string[];
  /** The spaces of those projects: the typo vocabularies a search reads (see vocabularyScopes). */
  spaces: string[];
  owner: string;
}

/** The notes of a scope. kb_scope_has (knowledge migration 0006) applies the same rule: change both. */
function scopeSql(s: Scope): RawBuilder<boolean> {
  const projects = s.projects.length ? s.projects : ['00000000-0000-0000-0000-000000000000'];
  return sql<boolean>`deleted_at is null and (
    (class = 'user-doc' and project = any(${projects}::uuid[]))
    or (class = 'agent-memory' and owner = ${s.owner} and (project is null or project = any(${projects}::uuid[]))))`;
}

/**
 * Whether a live note of the scope holds `lexeme` (kb_scope_has, knowledge migration 0006: the
 * scope of {@link scopeSql}, checked through the GIN index; inline, PostgreSQL scanned every note
 * for a lexeme none has).
 */
function hasLexeme(lexeme: RawBuilder<unknown>, s: Scope): RawBuilder<boolean> {
  return sql<boolean>`kb_scope_has(${lexeme}, ${s.projects}::uuid[], ${s.owner})`;
}

/**
 * The vocabulary's scopes a search scope reads (as addWords files lexemes): the shared notes of
 * its spaces, 's:<space>', and the owner's agent memory, 'o:<owner>'. Per space, not per project:
 * a member searches every project of a space, and one k-NN per project would cost a misspelt
 * search as much more as a space has projects.
 */
function vocabularyScopes(s: Scope): string[] {
  return [...s.spaces.map((space) => `s:${space}`), `o:${s.owner}`];
}

/** At most this many full-text matches are ranked (a word in half the notes must not rank them all). */
export const RANK_CANDIDATES = 1000;

/** Below this cosine similarity a vector neighbour is noise, not a match (every note is someone's nearest). */
export const MIN_COSINE = 0.3;

/** How many of the vocabulary's nearest lexemes (by trigram distance) are checked for a typo. */
const NEAREST = 30;

/** What PostgreSQL's dictionaries make of a query word. */
export interface WordLexemes {
  /** The `russian` configuration's lexemes (Snowball Russian or English); empty for a stop word. */
  russian: string[];
  /** hunspell-kk's lemmas (or the word itself where the dictionary does not know it). */
  hunspell: string[];
  /**
   * The word as written (its first Kazakh stem, the word itself) is in a note the caller may search
   * (never decided on other people's notes: whether a word is corrected must not tell that some
   * note elsewhere has it). Not any of its stems: a typo inside a suffix can leave a real stem (сандардаң →
   * сандарда), and Snowball's stem of a misspelt word can be a real form (глаголаим → глагола).
   */
  known: boolean;
}

/** All SQL of search: the query's lexemes and typo neighbours, three ranked id lists (full text, trigram, vector). */
export class SearchRepository {
  constructor(private readonly db: Kysely<KnowledgeDb>) {}

  /** The lexemes of each word (`stems`: its Kazakh stems, one array per word), in the order given. */
  async lexemes(words: string[], stems: string[][], hunspell: string | null, scope: Scope): Promise<WordLexemes[]> {
    if (!words.length) return [];
    const { rows } = await sql<WordLexemes>`
      with w as (
        select w.ord, tsvector_to_array(to_tsvector('pg_catalog.russian', w.word)) as russian,
          tsvector_to_array(coalesce(to_tsvector(${hunspell}::regconfig, w.word), ''::tsvector)) as hunspell,
          string_to_array(w.stems, ' ') as stems
        from unnest(${words}::text[], ${stems.map((s) => s.join(' '))}::text[]) with ordinality as w(word, stems, ord))
      select russian, hunspell,
        ${hasLexeme(sql`stems[1]`, scope)} as known
      from w order by ord`.execute(this.db);
    return rows;
  }

  /**
   * For each lexeme, the nearest lexemes by trigram distance (nearest first) of the vocabulary of
   * the caller's own scopes (kb_nearest, migration 0006: one GiST k-NN per scope, merged). Another
   * tenant's lexemes are not in those scopes, so they can neither take the nearest places nor show
   * that they exist. The vocabulary keeps lexemes of edited and deleted notes: {@link liveLexemes}
   * says which of the candidates a live note still has, asked only for those a typo away (a check
   * is a GIN lookup, 0.2–1 ms; all 30 neighbours of every word cost a misspelt query tens of ms).
   */
  async nearestWords(words: string[], scope: Scope): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(words.map((w) => [w, []]));
    if (!words.length) return out;
    const scopes = vocabularyScopes(scope);
    const { rows } = await sql<{ word: string; near: string }>`
      select w.word, n.word as near
      from unnest(${words}::text[]) as w(word)
      cross join lateral (
        select v.word, v.distance
        from unnest(${scopes}::text[]) as s(scope)
        cross join lateral kb_nearest(w.word, s.scope, ${NEAREST}) as v
        order by v.distance limit ${NEAREST}) n
      order by w.word, n.distance, n.word`.execute(this.db);
    for (const r of rows) out.get(r.word)?.push(r.near);
    return out;
  }

  /** Of the lexemes, those a live note of the scope holds. */
  async liveLexemes(lexemes: string[], scope: Scope): Promise<Set<string>> {
    if (!lexemes.length) return new Set();
    const { rows } = await sql<{ lexeme: string }>`
      select l as lexeme from unnest(${lexemes}::text[]) as l where ${hasLexeme(sql`l`, scope)}`.execute(this.db);
    return new Set(rows.map((r) => r.lexeme));
  }

  /** Notes matching a tsquery (text form), best `ts_rank` first. */
  async fullText(query: string, scope: Scope, limit: number): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      with q as (select ${query}::tsquery as query),
      hits as (
        select n.id, n.tsv, n.updated_at from notes n, q
        where n.tsv @@ q.query and ${scopeSql(scope)}
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

  /** How many notes of the scope have a vector, counted up to `upTo`. */
  async embedded(scope: Scope, upTo: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from (
        select 1 from notes where embedding is not null and ${scopeSql(scope)} limit ${upTo}) as e`.execute(this.db);
    return rows[0].n;
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
