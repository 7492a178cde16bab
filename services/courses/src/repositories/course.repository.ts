import type { Kysely, Selectable, Updateable } from 'kysely';
import type { CoursesDb } from '../db.ts';

/** A course row. */
export type CourseRow = Selectable<CoursesDb['courses']>;

/** Fields a handler may change on a course (revision and modification time follow by themselves). */
export type CoursePatch = Omit<Updateable<CoursesDb['courses']>, 'id' | 'card_revision' | 'updated_at' | 'created_at'>;

const COLUMNS = [
  'id',
  'course_key',
  'title',
  'summary',
  'description',
  'promise',
  'objectives',
  'status',
  'created_by',
  'instructors',
  'testers',
  'legacy_lessons',
  'announced',
  'card_revision',
  'created_at',
  'updated_at',
] as const;

/** A course in list_courses, with its active release's summary (no content). */
export interface CourseListRow {
  id: string;
  title: string;
  summary: string;
  status: CourseRow['status'];
  course_key: string | null;
  legacy_lessons: number;
  updated_at: string;
  release: string | null;
  version: number | null;
  published_at: string | null;
  lesson_count: number | null;
}

/** All SQL of the courses table. */
export class CourseRepository {
  constructor(private readonly db: Kysely<CoursesDb>) {}

  async find(id: string): Promise<CourseRow | undefined> {
    return this.db.selectFrom('courses').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /** Reads and locks the course for the rest of the transaction. */
  async lock(id: string): Promise<CourseRow | undefined> {
    return this.db.selectFrom('courses').select(COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst();
  }

  /** Reads and locks the course of a release key. */
  async lockByKey(courseKey: string): Promise<CourseRow | undefined> {
    return this.db
      .selectFrom('courses')
      .select(COLUMNS)
      .where('course_key', '=', courseKey)
      .forUpdate()
      .executeTakeFirst();
  }

  /** Inserts a course at card revision 1. */
  async insert(row: {
    id: string;
    course_key: string | null;
    title: string;
    summary: string;
    description: string;
    promise: string | null;
    created_by: string;
    instructors: string[];
  }): Promise<CourseRow> {
    return this.db
      .insertInto('courses')
      .values({ ...row, objectives: '[]', card_revision: 1 })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** Inserts the course of a new release key unless a concurrent publish made it first. */
  async insertKeyed(row: Parameters<CourseRepository['insert']>[0] & { course_key: string }): Promise<void> {
    await this.db
      .insertInto('courses')
      .values({ ...row, objectives: '[]', card_revision: 0 })
      .onConflict((oc) => oc.column('course_key').doNothing())
      .execute();
  }

  /** Applies a change and bumps the card revision; returns the new row. */
  async update(id: string, patch: CoursePatch): Promise<CourseRow> {
    return this.db
      .updateTable('courses')
      .set((eb) => ({ ...patch, card_revision: eb('card_revision', '+', 1), updated_at: new Date().toISOString() }))
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** Courses, newest first, with the active release's version, date and lesson count (one query). */
  async list(published?: boolean): Promise<CourseListRow[]> {
    let q = this.db
      .selectFrom('courses as c')
      .leftJoin('releases as r', (j) => j.onRef('r.course', '=', 'c.id').on('r.active', '=', true))
      .select([
        'c.id',
        'c.title',
        'c.summary',
        'c.status',
        'c.course_key',
        'c.legacy_lessons',
        'c.updated_at',
        'r.id as release',
        'r.version',
        'r.published_at',
        'r.lesson_count',
      ])
      .orderBy('c.created_at', 'desc')
      .orderBy('c.id', 'desc');
    if (published === true) q = q.where('c.status', '<>', 'draft');
    if (published === false) q = q.where('c.status', '=', 'draft');
    return q.execute();
  }

  /** Records lessons a course imported from the previous LMS has without a release (admin import). */
  async setLegacyLessons(id: string, count: number): Promise<boolean> {
    const res = await this.db
      .updateTable('courses')
      .set({ legacy_lessons: count })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }
}
