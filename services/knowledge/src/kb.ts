import type { Principal } from '@studium/contracts';
import type { Logger } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { Access } from './access.ts';
import type { KnowledgeDb } from './db.ts';
import type { Embeddings } from './embeddings.ts';
import { NoteRepository, type NoteRow } from './repositories/note.repository.ts';
import { ProjectRepository, type ProjectRow } from './repositories/project.repository.ts';
import type { TextSearch } from './text-search.ts';
import type { Actor, Writer } from './writer.ts';

/** What every /kb handler receives. */
export interface Kb {
  db: Kysely<KnowledgeDb>;
  access: Access;
  writer: Writer;
  ts: TextSearch;
  embeddings: Embeddings | null;
  log: Logger;
  /** Whether the database has pgvector (detected at start; vectors are kept in a plain column otherwise). */
  pgvector: boolean;
  /** Without pgvector: the most embedded notes a search compares by scanning (above: text only). */
  vectorScanLimit: number;
}

/** The caller as the author of a change made through a tool. */
export function agent(p: Principal): Actor {
  return { user: p.user, kind: 'agent' };
}

/** A note is visible to the caller: a shared note of one of their projects, or their own memory. */
export function visibleTo(p: Principal, projects: ProjectRow[]) {
  const ids = new Set(projects.map((x) => x.id));
  return (n: NoteRow) =>
    n.class === 'user-doc'
      ? n.project !== null && ids.has(n.project)
      : n.owner === p.user && (n.project === null || ids.has(n.project));
}

/** The project row of a note among the caller's projects (null for memory about the user). */
export function projectOf(n: { project: string | null }, projects: ProjectRow[]): ProjectRow | null {
  return projects.find((x) => x.id === n.project) ?? null;
}

/** A visible live note by id, with its project; undefined when the caller cannot see it. */
export async function visibleNote(kb: Kb, p: Principal, id: string) {
  const projects = await kb.access.projects(p);
  const n = await new NoteRepository(kb.db).get(id);
  if (!n || n.deleted_at || !visibleTo(p, projects)(n)) return undefined;
  return { note: n, project: projectOf(n, projects), projects };
}

export { ProjectRepository };
