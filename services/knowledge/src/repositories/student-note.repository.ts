import { type Kysely, sql } from 'kysely';
import type { KnowledgeDb } from '../db.ts';

/** A stored student note. */
export interface StudentNoteRow {
  key: string;
  kind: 'fact' | 'project' | 'observation';
  course: string;
  text: string;
  course_title: string;
  created_at: string;
  updated_at: string;
}

const COLUMNS = ['key', 'kind', 'course', 'text', 'course_title', 'created_at', 'updated_at'] as const;

/** All SQL of student notes. A fact is stored with course ''. */
export class StudentNoteRepository {
  constructor(private readonly db: Kysely<KnowledgeDb>) {}

  /** Serialises writers of one set (a user's facts, or a user's notes of one course). */
  async lockSet(user: string, course: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext(${`student_notes:${user}:${course}`}))`.execute(this.db);
  }

  async exists(user: string, course: string, key: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('student_notes')
      .select('key')
      .where('user_id', '=', user)
      .where('course', '=', course)
      .where('key', '=', key)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Keys of a set that count against the limit (every key but `exempt`). */
  async countKeys(user: string, course: string, exempt: readonly string[]): Promise<number> {
    let q = this.db
      .selectFrom('student_notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', user)
      .where('course', '=', course);
    if (exempt.length) q = q.where('key', 'not in', exempt);
    return Number((await q.executeTakeFirstOrThrow()).n);
  }

  /** Writes a note; an existing key of the set is replaced, keeping its creation time. */
  async upsert(user: string, note: Omit<StudentNoteRow, 'created_at' | 'updated_at'>): Promise<void> {
    const now = new Date().toISOString();
    await this.db
      .insertInto('student_notes')
      .values({ user_id: user, ...note, created_at: now, updated_at: now })
      .onConflict((oc) =>
        oc.columns(['user_id', 'course', 'key']).doUpdateSet({
          kind: note.kind,
          text: note.text,
          course_title: note.course_title,
          updated_at: now,
        }),
      )
      .execute();
  }

  /** Deletes a note; returns its kind, or undefined when there was none. */
  async delete(user: string, course: string, key: string): Promise<StudentNoteRow['kind'] | undefined> {
    const row = await this.db
      .deleteFrom('student_notes')
      .where('user_id', '=', user)
      .where('course', '=', course)
      .where('key', '=', key)
      .returning('kind')
      .executeTakeFirst();
    return row?.kind;
  }

  /** The user's facts, oldest first. */
  async facts(user: string): Promise<StudentNoteRow[]> {
    return this.db
      .selectFrom('student_notes')
      .select(COLUMNS)
      .where('user_id', '=', user)
      .where('course', '=', '')
      .orderBy('created_at')
      .orderBy('key')
      .execute();
  }

  /** The user's notes of one course, oldest first. */
  async ofCourse(user: string, course: string): Promise<StudentNoteRow[]> {
    return this.db
      .selectFrom('student_notes')
      .select(COLUMNS)
      .where('user_id', '=', user)
      .where('course', '=', course)
      .orderBy('created_at')
      .orderBy('key')
      .execute();
  }

  /** Project notes of the user's other courses, oldest first. */
  async projectsElsewhere(user: string, course: string): Promise<StudentNoteRow[]> {
    return this.db
      .selectFrom('student_notes')
      .select(COLUMNS)
      .where('user_id', '=', user)
      .where('kind', '=', 'project')
      .where('course', '!=', course)
      .where('course', '!=', '')
      .orderBy('created_at')
      .orderBy('key')
      .execute();
  }
}
