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

  /**
   * {@link lockSet}, then whether the key exists in the set and how many of the set's keys count
   * against the limit (every key but `exempt`), in one statement. The lock stays a
   * statement of its own: a statement's snapshot is taken before it runs, so reads in the lock's
   * own statement could miss a note committed while it waited.
   */
  async lockAndCount(
    user: string,
    course: string,
    key: string,
    exempt: readonly string[],
  ): Promise<{ exists: boolean; used: number }> {
    await this.lockSet(user, course);
    const row = await this.db
      .selectNoFrom((eb) => [
        eb
          .exists(
            eb
              .selectFrom('student_notes')
              .select('key')
              .where('user_id', '=', user)
              .where('course', '=', course)
              .where('key', '=', key),
          )
          .as('exists'),
        eb
          .selectFrom('student_notes')
          .select((e) => e.fn.countAll<number>().as('n'))
          .where('user_id', '=', user)
          .where('course', '=', course)
          .$if(exempt.length > 0, (q) => q.where('key', 'not in', exempt))
          .as('used'),
      ])
      .executeTakeFirstOrThrow();
    return { exists: Boolean(row.exists), used: Number(row.used) };
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

  /** The user's notes of one course (`withFacts`: and the facts, course ''), oldest first. */
  async ofCourse(user: string, course: string, withFacts = false): Promise<StudentNoteRow[]> {
    return this.db
      .selectFrom('student_notes')
      .select(COLUMNS)
      .where('user_id', '=', user)
      .where('course', 'in', withFacts ? [course, ''] : [course])
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
