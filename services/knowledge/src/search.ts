import type { Principal } from '@studium/contracts';
import { type ParsedQuery, tsQueryText } from './domain/query.ts';
import { below, fuse, snippetOf } from './domain/ranking.ts';
import { type Kb, projectOf, visibleTo } from './kb.ts';
import { corrections, parseQuery } from './query-parser.ts';
import { NOTE_COLUMNS, type NoteRow } from './repositories/note.repository.ts';
import type { ProjectRow } from './repositories/project.repository.ts';
import { type Scope, SearchRepository } from './repositories/search.repository.ts';

/** A ranked note with its fused score. */
export interface Ranked {
  note: NoteRow;
  project: ProjectRow | null;
  score: number;
}

const PER_LIST = 50;
const FEW = 10;

/** Appends to `list` the ids of `more` it does not have yet. */
function append(list: string[], more: string[]): string[] {
  const have = new Set(list);
  return [...list, ...more.filter((id) => !have.has(id))];
}

/**
 * The full-text list: notes with every word of the query first, then notes with every word once
 * typos are corrected; when these are fewer than FEW, notes with some of the words follow (exact,
 * then corrected). `exact` collects the notes found without a correction. Corrections are looked
 * up only while fewer than `limit` notes matched exactly: they rank below those, so past `limit`
 * exact matches no corrected one could be returned.
 */
async function fullText(
  kb: Kb,
  repo: SearchRepository,
  query: ParsedQuery,
  scope: Scope,
  limit: number,
  exact: Set<string>,
) {
  const run = async (words: string[][] | null, mode: 'all' | 'any') => {
    const q = words ? tsQueryText(words, mode) : null;
    return q ? repo.fullText(q, scope, PER_LIST) : [];
  };
  let fuzzy: Promise<string[][] | null> | undefined;
  const corrected = () => {
    fuzzy ??= corrections(repo, query, kb.ts.hunspell, scope);
    return fuzzy;
  };
  const all = await run(query.exact, 'all');
  for (const id of all) exact.add(id);
  let list = all.length < limit ? append(all, await run(await corrected(), 'all')) : all;
  if (list.length < FEW && query.exact.length > 1) {
    const any = await run(query.exact, 'any');
    for (const id of any) exact.add(id);
    list = append(list, any);
    if (exact.size < limit) list = append(list, await run(await corrected(), 'any'));
  }
  return list;
}

/** What a search of `owner` over these projects reads: the projects, their spaces, the owner's memory. */
export function searchScope(projects: ProjectRow[], owner: string): Scope {
  return { projects: projects.map((x) => x.id), spaces: [...new Set(projects.map((x) => x.space))], owner };
}

/**
 * Hybrid search: full text (every note indexed in Russian, English and Kazakh forms), trigram
 * similarity of titles and, with an embedding provider, vector similarity; fused by RRF. Notes
 * found only through a typo correction (in the body's words or the title's trigrams) rank below
 * every note found as written. A failing provider leaves the text lists (no error). Without
 * pgvector, vectors are compared only while the scope holds at most `vectorScanLimit` of them.
 */
export async function rank(kb: Kb, p: Principal, query: string, projects: ProjectRow[], limit: number) {
  const scope = searchScope(projects, p.user);
  const repo = new SearchRepository(kb.db);
  const modes = ['fts', 'trigram'];
  const exact = new Set<string>();
  const [fts, trigram] = await Promise.all([
    parseQuery(repo, query, kb.ts.hunspell, scope).then((parsed) => fullText(kb, repo, parsed, scope, limit, exact)),
    repo.trigram(query, scope, PER_LIST),
  ]);
  const lists = [fts, trigram];
  if (kb.embeddings && (kb.pgvector || (await repo.embedded(scope, kb.vectorScanLimit + 1)) <= kb.vectorScanLimit)) {
    try {
      const [v] = await kb.embeddings.embed([query]);
      const vector = await repo.vector(v, scope, PER_LIST, kb.pgvector);
      for (const id of vector) exact.add(id);
      lists.push(vector);
      modes.push('vector');
    } catch (err) {
      kb.log.warn({ err: (err as Error).message }, 'query embedding failed; searching by text');
    }
  }
  const fused = below(fuse(lists), exact).slice(0, limit);
  if (!fused.length) return { ranked: [] as Ranked[], modes };
  const rows = (await kb.db
    .selectFrom('notes')
    .select(NOTE_COLUMNS)
    .where(
      'id',
      'in',
      fused.map((f) => f.id),
    )
    .execute()) as NoteRow[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const visible = visibleTo(p, projects);
  const ranked: Ranked[] = [];
  for (const f of fused) {
    const n = byId.get(f.id);
    if (n && !n.deleted_at && visible(n)) ranked.push({ note: n, project: projectOf(n, projects), score: f.score });
  }
  return { ranked, modes };
}

/** A search hit: a snippet, never the whole note. */
export function hit(r: Ranked, query: string) {
  return {
    id: r.note.id,
    title: r.note.title,
    path: r.note.folder,
    project: r.project?.handle ?? null,
    class: r.note.class,
    snippet: snippetOf(r.note.body.replace(/^#\s+.*$/m, ''), query),
    score: r.score,
    trust: 'untrusted' as const,
  };
}
