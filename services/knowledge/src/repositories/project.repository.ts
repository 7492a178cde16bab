import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { KnowledgeDb } from '../db.ts';
import { handleOf } from '../domain/paths.ts';

/** A project row with its handle. */
export interface ProjectRow {
  id: string;
  space: string;
  slug: string;
  title: string;
  handle: string;
}

function withHandle(r: Omit<ProjectRow, 'handle'>): ProjectRow {
  return { ...r, handle: handleOf(r.space, r.slug) };
}

/** All SQL of projects and their aliases. */
export class ProjectRepository {
  constructor(private readonly db: Kysely<KnowledgeDb>) {}

  /** Creates the root project of each space that has none (title = the space's title). */
  async ensureRoots(spaces: Array<{ name: string; title: string }>): Promise<void> {
    if (!spaces.length) return;
    await this.db
      .insertInto('projects')
      .values(spaces.map((s) => ({ id: randomUUID(), space: s.name, slug: '', title: s.title })))
      // A root made by the admin CLI carries the space name as its title until the space's title is known.
      .onConflict((oc) =>
        oc
          .columns(['space', 'slug'])
          .doUpdateSet({ title: sql`excluded.title` })
          .where(sql<boolean>`projects.title = projects.space and excluded.title <> projects.title`),
      )
      .execute();
  }

  /** Creates a project (people do, through the admin CLI); undefined when the handle exists. */
  async create(space: string, slug: string, title: string): Promise<ProjectRow | undefined> {
    const row = await this.db
      .insertInto('projects')
      .values({ id: randomUUID(), space, slug, title })
      .onConflict((oc) => oc.columns(['space', 'slug']).doNothing())
      .returning(['id', 'space', 'slug', 'title'])
      .executeTakeFirst();
    return row && withHandle(row);
  }

  /** Projects of the spaces, ordered by handle. */
  async inSpaces(spaces: string[]): Promise<ProjectRow[]> {
    if (!spaces.length) return [];
    const rows = await this.db
      .selectFrom('projects')
      .select(['id', 'space', 'slug', 'title'])
      .where('space', 'in', spaces)
      .orderBy('space')
      .orderBy('slug')
      .execute();
    return rows.map(withHandle);
  }

  /** A project by its handle or a former one. */
  async byHandle(handle: string): Promise<ProjectRow | undefined> {
    const h = handle.trim().replace(/^\/+|\/+$/g, '');
    const i = h.indexOf('/');
    const [space, slug] = i < 0 ? [h, ''] : [h.slice(0, i), h.slice(i + 1)];
    const direct = await this.db
      .selectFrom('projects')
      .select(['id', 'space', 'slug', 'title'])
      .where('space', '=', space)
      .where('slug', '=', slug)
      .executeTakeFirst();
    if (direct) return withHandle(direct);
    const alias = await this.db
      .selectFrom('project_aliases as a')
      .innerJoin('projects as p', 'p.id', 'a.project')
      .select(['p.id', 'p.space', 'p.slug', 'p.title'])
      .where('a.handle', '=', h)
      .executeTakeFirst();
    return alias && withHandle(alias);
  }

  async byId(id: string): Promise<ProjectRow | undefined> {
    const row = await this.db
      .selectFrom('projects')
      .select(['id', 'space', 'slug', 'title'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row && withHandle(row);
  }

  /** Former handles of a project. */
  async aliases(id: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('project_aliases')
      .select('handle')
      .where('project', '=', id)
      .orderBy('handle')
      .execute();
    return rows.map((r) => r.handle);
  }

  /** Sets slug and title; the old handle becomes an alias (and a handle taken back stops being one). */
  async rename(p: ProjectRow, slug: string, title: string): Promise<ProjectRow> {
    const next = handleOf(p.space, slug);
    if (next !== p.handle) {
      await this.db
        .insertInto('project_aliases')
        .values({ handle: p.handle, project: p.id })
        .onConflict((oc) => oc.column('handle').doUpdateSet({ project: p.id }))
        .execute();
      await this.db.deleteFrom('project_aliases').where('handle', '=', next).execute();
    }
    const row = await this.db
      .updateTable('projects')
      .set({ slug, title })
      .where('id', '=', p.id)
      .returning(['id', 'space', 'slug', 'title'])
      .executeTakeFirstOrThrow();
    return withHandle(row);
  }

  /** True when the handle names another project (directly or as an alias). */
  async handleTaken(space: string, slug: string, except: string): Promise<boolean> {
    const found = await this.byHandle(handleOf(space, slug));
    return found !== undefined && found.id !== except;
  }
}
