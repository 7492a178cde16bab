import type { Logger } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { KnowledgeDb } from './db.ts';
import { SLUG } from './domain/paths.ts';
import { noteNotFound } from './refusals.ts';
import { isUuid } from './repositories/note.repository.ts';
import { ProjectRepository } from './repositories/project.repository.ts';
import type { TextSearch } from './text-search.ts';
import { Writer } from './writer.ts';

/**
 * What only people do (the admin CLI, never a tool): create projects, list the trash, restore a
 * note from it or purge it for good.
 */
export class KnowledgeAdmin {
  private readonly writer: Writer;

  constructor(
    private readonly db: Kysely<KnowledgeDb>,
    ts: TextSearch,
    log: Logger,
  ) {
    this.writer = new Writer(db, ts, null, log);
  }

  /** A project `space/slug` (the space's root project exists on its own). */
  async createProject(space: string, slug: string, title: string) {
    if (!SLUG.test(slug)) throw new Error('slug: lower-case letters, digits and dashes');
    const repo = new ProjectRepository(this.db);
    await repo.ensureRoots([{ name: space, title: space }]);
    const p = await repo.create(space, slug, title);
    if (!p) throw new Error(`project ${space}/${slug} exists`);
    return p;
  }

  /** Trashed notes, newest first. */
  async trash(limit = 100) {
    return this.db
      .selectFrom('notes')
      .select(['id', 'title', 'folder', 'project', 'deleted_at', 'deleted_by'])
      .where('deleted_at', 'is not', null)
      .orderBy('deleted_at', 'desc')
      .limit(limit)
      .execute();
  }

  /** Takes a note out of the trash in the name of `by` (a person). */
  async restore(id: string, by: string) {
    if (!isUuid(id)) return noteNotFound(id);
    const n = await this.db.selectFrom('notes').select(['project']).where('id', '=', id).executeTakeFirst();
    const project = n?.project ? ((await new ProjectRepository(this.db).byId(n.project)) ?? null) : null;
    return this.writer.restore(id, project, by);
  }

  /** Deletes a trashed note and its revisions for good. */
  async purge(id: string) {
    if (!isUuid(id)) return noteNotFound(id);
    return this.writer.purge(id);
  }
}
