import type { Principal } from '@studium/contracts';
import { fuse, snippetOf } from './domain/ranking.ts';
import { type Kb, projectOf, visibleTo } from './kb.ts';
import { NOTE_COLUMNS, type NoteRow } from './repositories/note.repository.ts';
import type { ProjectRow } from './repositories/project.repository.ts';
import { SearchRepository } from './repositories/search.repository.ts';

/** A ranked note with its fused score. */
export interface Ranked {
  note: NoteRow;
  project: ProjectRow | null;
  score: number;
}

const PER_LIST = 50;
const FEW = 10;

/**
 * Hybrid search: full text (Russian, Kazakh and simple configurations), trigram similarity and,
 * with an embedding provider, vector similarity; fused by RRF. A failing provider leaves the
 * text lists (no error).
 */
export async function rank(kb: Kb, p: Principal, query: string, projects: ProjectRow[], limit: number) {
  const scope = { projects: projects.map((x) => x.id), owner: p.user };
  const repo = new SearchRepository(kb.db);
  const modes = ['fts', 'trigram'];
  const [all, trigram] = await Promise.all([
    repo.fullText(query, kb.ts.queryConfigs, scope, PER_LIST, 'all'),
    repo.trigram(query, scope, PER_LIST),
  ]);
  // Notes with every word of the query rank first; when they are few, notes with some words follow.
  let fts = all;
  if (all.length < FEW) {
    const any = await repo.fullText(query, kb.ts.queryConfigs, scope, PER_LIST, 'any');
    fts = [...all, ...any.filter((id) => !all.includes(id))];
  }
  const lists = [fts, trigram];
  if (kb.embeddings) {
    try {
      const [v] = await kb.embeddings.embed([query]);
      lists.push(await repo.vector(v, scope, PER_LIST, kb.pgvector));
      modes.push('vector');
    } catch (err) {
      kb.log.warn({ err: (err as Error).message }, 'query embedding failed; searching by text');
    }
  }
  const fused = fuse(lists).slice(0, limit);
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
