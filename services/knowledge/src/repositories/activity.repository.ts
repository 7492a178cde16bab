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

/** How far back start_session's delta looks for a caller with no change of their own in the project. */
export const DELTA_WINDOW_DAYS = 7;

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

  /**
   * Where start_session's delta starts: the caller's own last change in the project, else
   * the UTC midnight DELTA_WINDOW_DAYS days back. Read only — start_session writes nothing (its annotation says so, and a
   * read token may call it), so the same state gives the same delta on every call.
   */
  async deltaSince(user: string, project: string): Promise<string> {
    const own = await this.db
      .selectFrom('activity')
      // As text: PostgreSQL's microseconds survive (a JS Date would keep only milliseconds).
      .select(sql<string | null>`max(at)::text`.as('at'))
      .where('by_user', '=', user)
      .where('project', '=', project)
      .executeTakeFirst();
    if (own?.at) return own.at;
    // From a UTC midnight, so that calls on one day give the same delta.
    const day = Math.floor(Date.now() / 86_400_000) - DELTA_WINDOW_DAYS;
    return new Date(day * 86_400_000).toISOString();
  }
}
