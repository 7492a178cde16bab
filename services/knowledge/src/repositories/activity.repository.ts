import { type Kysely, sql } from 'kysely';
import type { KnowledgeDb } from '../db.ts';

/** One change with the note's current title and folder. */
export interface ActivityRow {
  note: string;
  title: string;
  folder: string;
  project: string | null;
  action: string;
  by_user: string;
  by_kind: string;
  at: string;
}

/** All SQL of the activity log and visits. */
export class ActivityRepository {
  constructor(private readonly db: Kysely<KnowledgeDb>) {}

  async record(a: {
    note: string;
    project: string | null;
    owner: string | null;
    action: string;
    by: string;
    byKind: string;
  }) {
    await this.db
      .insertInto('activity')
      .values({ note: a.note, project: a.project, owner: a.owner, action: a.action, by_user: a.by, by_kind: a.byKind })
      .execute();
  }

  /** One row per note, the same action by the same author, in ONE statement (in id order). */
  async recordMany(ids: string[], action: string, by: string, byKind: string) {
    await sql`insert into activity (note, project, owner, action, by_user, by_kind)
      select id, project, owner, ${action}, ${by}, ${byKind}
      from notes where id = any(${ids}::uuid[])
      order by id`.execute(this.db);
  }

  /**
   * Latest changes of shared notes in the projects (and of the caller's memory when `owner`),
   * newest first; `since` keeps only later ones.
   */
  async latest(projects: string[], owner: string | null, limit: number, since?: string): Promise<ActivityRow[]> {
    if (!projects.length && !owner) return [];
    let q = this.db
      .selectFrom('activity as a')
      .innerJoin('notes as n', 'n.id', 'a.note')
      .select(['a.note', 'n.title', 'n.folder', 'a.project', 'a.action', 'a.by_user', 'a.by_kind', 'a.at'])
      .where((eb) =>
        eb.or([
          ...(projects.length ? [eb.and([eb('a.project', 'in', projects), eb('n.class', '=', 'user-doc')])] : []),
          ...(owner ? [eb('a.owner', '=', owner)] : []),
        ]),
      )
      .orderBy('a.id', 'desc')
      .limit(limit);
    if (since) q = q.where('a.at', '>', since);
    return q.execute();
  }

  /** How many changes of shared notes of a project came after `since` (the delta's total). */
  async countSince(project: string, since: string): Promise<number> {
    const row = await this.db
      .selectFrom('activity as a')
      .innerJoin('notes as n', 'n.id', 'a.note')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('a.project', '=', project)
      .where('n.class', '=', 'user-doc')
      .where('a.at', '>', since)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The caller's previous visit of a project, and now recorded as the new one. */
  async visit(user: string, project: string): Promise<string | null> {
    const prev = await this.db
      .selectFrom('visits')
      .select('at')
      .where('user_id', '=', user)
      .where('project', '=', project)
      .executeTakeFirst();
    await this.db
      .insertInto('visits')
      .values({ user_id: user, project, at: new Date().toISOString() })
      .onConflict((oc) => oc.columns(['user_id', 'project']).doUpdateSet({ at: sql`excluded.at` }))
      .execute();
    return prev?.at ?? null;
  }
}
