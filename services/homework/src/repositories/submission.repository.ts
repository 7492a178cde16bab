import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { HomeworkDb } from '../db.ts';
import type { DocumentState } from '../domain/document.ts';
import type { HomeworkStatus } from '../domain/homework.ts';

/** A submission row. */
export type SubmissionRow = Selectable<HomeworkDb['submissions']>;
/** A stored file of an answer. */
export type FileRow = Selectable<HomeworkDb['files']>;
/** A saved version. */
export type VersionRow = Selectable<HomeworkDb['versions']>;
/** A journal entry. */
export type JournalRow = Selectable<HomeworkDb['journal']>;

/** Where a submission lives: the student, the lesson and the space. */
export interface SubmissionPlace {
  user: string;
  course: string;
  lesson: string;
  lesson_key: string;
  space: string;
  organization: string | null;
}

const COLUMNS = [
  'id',
  'user_id',
  'course',
  'lesson',
  'lesson_key',
  'space',
  'organization',
  'student_name',
  'curators',
  'status',
  'assigned_at',
  'due_at',
  'version',
  'answer',
  'last_comment',
  'submitted_at',
  'updated_at',
] as const;

/** PostgreSQL's lock_not_available: another request holds the submission (spec: busy). */
export function isLockBusy(err: unknown): boolean {
  return (err as { code?: string })?.code === '55P03';
}

/** All SQL of submissions, versions, files and the journal. */
export class SubmissionRepository {
  constructor(private readonly db: Kysely<HomeworkDb>) {}

  async find(user: string, lesson: string, space: string): Promise<SubmissionRow | undefined> {
    return this.db
      .selectFrom('submissions')
      .select(COLUMNS)
      .where('user_id', '=', user)
      .where('lesson', '=', lesson)
      .where('space', '=', space)
      .executeTakeFirst();
  }

  /**
   * homework.lesson_context's read in one statement: the content of the student's document in the
   * space (empty when none or no artifact asked) and the previous lesson's submission there.
   */
  async lessonContext(q: {
    user: string;
    course: string;
    space: string;
    artifact: string | null;
    previousLesson: string | null;
  }): Promise<{
    content: DocumentState;
    previous: Pick<SubmissionRow, 'status' | 'due_at' | 'version' | 'last_comment'> | null;
  }> {
    if (q.artifact === null && q.previousLesson === null) return { content: { sections: {} }, previous: null };
    const { rows } = await sql<{
      content: DocumentState | null;
      previous: Pick<SubmissionRow, 'status' | 'due_at' | 'version' | 'last_comment'> | null;
    }>`select
        (select d.content from documents d where d.user_id = ${q.user} and d.course = ${q.course}
          and d.space = ${q.space} and d.artifact = ${q.artifact}) as content,
        (select json_build_object('status', s.status, 'due_at', s.due_at, 'version', s.version,
            'last_comment', s.last_comment)
          from submissions s where s.user_id = ${q.user} and s.lesson = ${q.previousLesson} and s.space = ${q.space})
          as previous`.execute(this.db);
    const row = rows[0];
    const previous = row?.previous ?? null;
    return {
      content: row?.content ?? { sections: {} },
      // PostgreSQL's timestamp text inside json, as the type parser gives timestamps elsewhere.
      previous: previous && { ...previous, due_at: previous.due_at && new Date(previous.due_at).toISOString() },
    };
  }

  async findById(id: string): Promise<SubmissionRow | undefined> {
    return this.db.selectFrom('submissions').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /**
   * Locks the submission of a place for a write without waiting (inside a transaction); creates it
   * with `status` when missing. Throws lock_not_available when another request holds it (busy).
   */
  async lockPlace(
    p: SubmissionPlace,
    status: HomeworkStatus,
    wait = false,
  ): Promise<{ row: SubmissionRow; created: boolean }> {
    const inserted = await this.db
      .insertInto('submissions')
      .values({
        id: randomUUID(),
        user_id: p.user,
        course: p.course,
        lesson: p.lesson,
        lesson_key: p.lesson_key,
        space: p.space,
        organization: p.organization,
        status,
      })
      .onConflict((oc) => oc.doNothing())
      .returning(COLUMNS)
      .executeTakeFirst();
    // A row this transaction just inserted is its own until commit: no second statement to lock it.
    if (inserted) return { row: inserted, created: true };
    let q = this.db
      .selectFrom('submissions')
      .select(COLUMNS)
      .where('user_id', '=', p.user)
      .where('lesson', '=', p.lesson)
      .where('space', '=', p.space)
      .forUpdate();
    if (!wait) q = q.noWait();
    return { row: await q.executeTakeFirstOrThrow(), created: false };
  }

  /** Locks a submission by id for a curator's change (waits for a running write). */
  async lockById(id: string): Promise<SubmissionRow | undefined> {
    return this.db.selectFrom('submissions').select(COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst();
  }

  async update(id: string, patch: Updateable<HomeworkDb['submissions']>): Promise<SubmissionRow> {
    return this.db
      .updateTable('submissions')
      .set({ ...patch, updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  async addVersion(v: Omit<VersionRow, 'submitted_at'>): Promise<void> {
    await this.db.insertInto('versions').values(v).execute();
  }

  async addJournal(e: Omit<JournalRow, 'id' | 'at'>): Promise<void> {
    await this.db.insertInto('journal').values(e).execute();
  }

  async addFiles(files: Omit<FileRow, 'created_at'>[]): Promise<void> {
    if (files.length) await this.db.insertInto('files').values(files).execute();
  }

  /** Bytes of every file the student keeps (all answers, all versions): the quota's use. */
  async storedBytes(user: string): Promise<number> {
    const row = await this.db
      .selectFrom('files')
      .innerJoin('submissions', 'submissions.id', 'files.submission')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('files.size'), eb.lit(0)).as('bytes'))
      .where('submissions.user_id', '=', user)
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  /** Files of a submission in upload order. */
  async files(submission: string): Promise<FileRow[]> {
    return this.db
      .selectFrom('files')
      .select(['id', 'submission', 'object', 'name', 'type', 'size', 'sha256', 'created_at'])
      .where('submission', '=', submission)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  async versions(submission: string): Promise<VersionRow[]> {
    return this.db
      .selectFrom('versions')
      .select(['submission', 'version', 'answer', 'files', 'by', 'submitted_at'])
      .where('submission', '=', submission)
      .orderBy('version')
      .execute();
  }

  async journal(submission: string): Promise<JournalRow[]> {
    return this.db
      .selectFrom('journal')
      .select(['id', 'submission', 'event', 'actor', 'version', 'comment', 'at'])
      .where('submission', '=', submission)
      .orderBy('id')
      .execute();
  }

  /** The student's submissions in a space (optionally of one course), recent first. */
  async listForUser(user: string, space: string, course: string | null): Promise<SubmissionRow[]> {
    let q = this.db
      .selectFrom('submissions')
      .select(COLUMNS)
      .where('user_id', '=', user)
      .where('space', '=', space)
      .orderBy('updated_at', 'desc')
      .orderBy('id')
      .limit(QUEUE_LIMIT);
    if (course) q = q.where('course', '=', course);
    return q.execute();
  }

  /**
   * The student's homework returned for rework (Returned) in the given spaces, optionally of one
   * course and without one lesson (the one start_lesson shows as previous_homework), recent first.
   */
  async returned(q: {
    user: string;
    spaces: readonly string[];
    course: string | null;
    exclude: string | null;
    limit: number;
  }): Promise<SubmissionRow[]> {
    if (!q.spaces.length) return [];
    let query = this.db
      .selectFrom('submissions')
      .select(COLUMNS)
      .where('user_id', '=', q.user)
      .where('space', 'in', [...q.spaces])
      .where('status', '=', 'Returned')
      .orderBy('updated_at', 'desc')
      .orderBy('id')
      .limit(q.limit);
    if (q.course) query = query.where('course', '=', q.course);
    if (q.exclude) query = query.where('lesson', '<>', q.exclude);
    return query.execute();
  }

  /**
   * The review queue: submissions of a status, oldest submission first. `curator` set: only
   * courses the curator leads; `course` set: only that course.
   */
  async queue(f: { status: HomeworkStatus; course: string | null; curator: string | null }): Promise<SubmissionRow[]> {
    let q = this.db
      .selectFrom('submissions')
      .select(COLUMNS)
      .where('status', '=', f.status)
      .orderBy(sql`coalesce(submitted_at, updated_at)`)
      .orderBy('id')
      .limit(QUEUE_LIMIT + 1);
    if (f.course) q = q.where('course', '=', f.course);
    if (f.curator) q = q.where(sql<boolean>`${f.curator} = any(curators)`);
    return q.execute();
  }

  /**
   * The courses that have any submission, in id order, at most `limit`: a skip scan over
   * submissions_course (one index probe per course, however many submissions each has).
   */
  async courses(limit: number): Promise<string[]> {
    const { rows } = await sql<{ course: string }>`with recursive c (course) as (
        (select course from submissions order by course limit 1)
        union all
        select (select s.course from submissions s where s.course > c.course order by s.course limit 1)
        from c where c.course is not null)
      select course from c where course is not null limit ${limit}`.execute(this.db);
    return rows.map((r) => r.course);
  }

  /** Records the space of the student's latest lesson session on a course. */
  async setCourseSpace(user: string, course: string, space: string, at: string): Promise<void> {
    await this.db
      .insertInto('course_spaces')
      .values({ user_id: user, course, space, at })
      .onConflict((oc) =>
        oc.columns(['user_id', 'course']).doUpdateSet({ space, at }).where('course_spaces.at', '<=', at),
      )
      .execute();
  }

  async courseSpace(user: string, course: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('course_spaces')
      .select('space')
      .where('user_id', '=', user)
      .where('course', '=', course)
      .executeTakeFirst();
    return row?.space ?? null;
  }
}

/** The most submissions one list returns (a reply must stay under NATS's 1 MB). */
export const QUEUE_LIMIT = 100;
