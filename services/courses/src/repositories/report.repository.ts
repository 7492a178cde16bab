import type { Insertable, Kysely, Selectable } from 'kysely';
import type { CoursesDb, ReportStatus } from '../db.ts';
import { CLOSED_STATUSES } from '../domain/report-rules.ts';

/** A report row as the tools read it. */
export type ReportRow = Omit<Selectable<CoursesDb['reports']>, 'updated_at' | 'resolved_by' | 'session'>;

/** What resolve_report writes. */
export interface ReportResolution {
  status: ReportStatus;
  resolution: string | null;
  resolved_at: string | null;
  resolved_by: string;
  duplicate_of: number | null;
}

const COLUMNS = [
  'id',
  'course',
  'user_id',
  'space',
  'lesson',
  'lesson_key',
  'lesson_title',
  'release',
  'kind',
  'text',
  'objective',
  'question_key',
  'status',
  'resolution',
  'resolved_at',
  'duplicate_of',
  'delivered_at',
  'created_at',
] as const;

/** Longest chain of duplicates followed for an inherited resolution. */
const CHAIN_DEPTH = 50;

/** All SQL of student reports. */
export class ReportRepository {
  constructor(private readonly db: Kysely<CoursesDb>) {}

  async insert(row: Insertable<CoursesDb['reports']>): Promise<ReportRow> {
    return this.db.insertInto('reports').values(row).returning(COLUMNS).executeTakeFirstOrThrow();
  }

  async find(id: number): Promise<ReportRow | undefined> {
    return this.db.selectFrom('reports').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /** Reads and locks a report for a status change. */
  async lock(id: number): Promise<ReportRow | undefined> {
    return this.db.selectFrom('reports').select(COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst();
  }

  /** Sets status and answer; a closing makes the report undelivered again (the student hears the new answer). */
  async resolve(id: number, r: ReportResolution): Promise<ReportRow> {
    return this.db
      .updateTable('reports')
      .set({ ...r, delivered_at: null, updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** The student's reports, newest first, optionally of one course. */
  async ofStudent(user: string, course: string | undefined, limit: number): Promise<ReportRow[]> {
    let q = this.db.selectFrom('reports').select(COLUMNS).where('user_id', '=', user);
    if (course !== undefined) q = q.where('course', '=', course);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** The course's freshest reports by the filters of course_reports. */
  async ofCourse(
    course: string,
    filter: { kind?: string; lesson?: string; statuses?: readonly ReportStatus[] },
    limit: number,
  ): Promise<ReportRow[]> {
    let q = this.db.selectFrom('reports').select(COLUMNS).where('course', '=', course);
    if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
    if (filter.lesson !== undefined) q = q.where('lesson_key', '=', filter.lesson);
    if (filter.statuses) q = q.where('status', 'in', filter.statuses);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /**
   * The student's closed reports on the course not yet delivered, marked delivered now (locked,
   * so two concurrent start_lesson calls cannot both take the same report), oldest first.
   */
  async takeClosed(user: string, course: string): Promise<ReportRow[]> {
    // One statement (its own transaction when run outside one): the reports taken are locked,
    // skipping any another taker holds, and marked delivered.
    const rows = await this.db
      .updateTable('reports')
      .set({ delivered_at: new Date().toISOString() })
      .where('id', 'in', (qb) =>
        qb
          .selectFrom('reports')
          .select('id')
          .where('user_id', '=', user)
          .where('course', '=', course)
          .where('delivered_at', 'is', null)
          .where('status', 'in', CLOSED_STATUSES)
          .forUpdate()
          .skipLocked(),
      )
      .returning(COLUMNS)
      .execute();
    const key = (r: ReportRow) => r.resolved_at ?? '\uffff';
    return rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id));
  }

  /**
   * The answer a duplicate without its own inherits: the first resolution along its chain of
   * originals. Keyed by the duplicate's id; missing when the chain has none.
   */
  async inheritedResolutions(rows: readonly ReportRow[]): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    // Each pending duplicate walks towards its original, one query per step for all of them.
    let pending = rows
      .filter((r) => r.status === 'duplicate' && r.resolution === null && r.duplicate_of !== null)
      .map((r) => ({ id: r.id, next: r.duplicate_of as number }));
    for (let depth = 0; pending.length && depth < CHAIN_DEPTH; depth++) {
      const originals = await this.db
        .selectFrom('reports')
        .select(['id', 'resolution', 'duplicate_of'])
        .where(
          'id',
          'in',
          pending.map((p) => p.next),
        )
        .execute();
      const byId = new Map(originals.map((o) => [o.id, o]));
      const still: typeof pending = [];
      for (const p of pending) {
        const o = byId.get(p.next);
        if (!o) continue;
        if (o.resolution !== null) out.set(p.id, o.resolution);
        else if (o.duplicate_of !== null) still.push({ id: p.id, next: o.duplicate_of });
      }
      pending = still;
    }
    return out;
  }

  /** Whether `from` reaches `to` by following duplicate_of (a duplicate must not close a cycle). */
  async leadsTo(from: number, to: number): Promise<boolean> {
    const seen = new Set<number>();
    let next: number | null = from;
    while (next !== null && !seen.has(next)) {
      if (next === to) return true;
      seen.add(next);
      const row: { duplicate_of: number | null } | undefined = await this.db
        .selectFrom('reports')
        .select('duplicate_of')
        .where('id', '=', next)
        .executeTakeFirst();
      next = row?.duplicate_of ?? null;
    }
    return false;
  }
}
