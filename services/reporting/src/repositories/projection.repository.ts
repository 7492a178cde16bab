import type {
  AssignmentChanged,
  CourseCardChanged,
  DocumentUpdated,
  Enrolled,
  GoalMarked,
  HomeworkChanged,
  LessonFailed,
  LessonPassed,
  MembershipChanged,
  OrganizationChanged,
  QuizAttemptCancelled,
  QuizAttemptFinished,
  SessionStarted,
  UserUpdated,
} from '@studium/contracts';
import { parseLessonId } from '@studium/contracts';
import { type Kysely, type RawBuilder, sql } from 'kysely';

/** Where a lesson event happened (the common fields of lessons.* events). */
type LessonPlace = Pick<
  SessionStarted,
  'user' | 'course' | 'lesson' | 'lesson_key' | 'session' | 'space' | 'organization' | 'at'
>;

/** A course's progress as the progress table keeps it, from lesson_passed or lesson_failed. */
export type ProgressRow = {
  user_id: string;
  course: string;
  lessons_passed: number;
  lessons_total: number;
  completed: boolean;
  lessons_failed: number;
  finished: boolean;
  at: string;
};

/** The progress row of a lesson_passed or lesson_failed (older events carry no failed lessons: none). */
export function progressRow(e: LessonPassed | LessonFailed): ProgressRow {
  // lesson_failed has no course_completed: a failed lesson is never a completed course.
  const completed = (e as LessonPassed).course_completed === true;
  return {
    user_id: e.user,
    course: e.course,
    lessons_passed: e.lessons_passed,
    lessons_total: e.lessons_total,
    completed,
    lessons_failed: (e.failed_lessons as string[] | undefined)?.length ?? 0,
    finished: (e.course_finished as boolean | undefined) ?? completed,
    at: e.at,
  };
}

/**
 * Session statuses in the order they advance; a session never goes back. abandoned (another
 * session of the lesson replaced it) and passed (its lesson was passed in it: closed) both end it.
 */
const SESSION_ORDER = sql`array['in_progress', 'covered', 'abandoned', 'passed']`;

/**
 * All writes of the read models of one generation. Each is an upsert that keeps the newest `at`
 * (or revision), so events may arrive in any order and more than once.
 */
export class ProjectionRepository {
  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: raw SQL over a schema chosen at run time
    private readonly db: Kysely<any>,
    private readonly schema: string,
  ) {}

  private t(table: string): RawBuilder<unknown> {
    return sql.table(`${this.schema}.${table}`);
  }

  /** The set-based writers of this generation, in the same transaction. */
  batch(): BatchProjection {
    return new BatchProjection(this.db, this.schema);
  }

  /** Marks messages processed in one statement; returns the ids that were not yet (the rest are redeliveries). */
  async markManyProcessed(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const res = await sql<{ msg_id: string }>`insert into ${this.t('processed')} (msg_id)
      select unnest(${ids}::text[]) on conflict do nothing returning msg_id`.execute(this.db);
    return new Set(res.rows.map((r) => r.msg_id));
  }

  /** Marks a message processed; false when it already was (redelivery). */
  async markProcessed(msgId: string): Promise<boolean> {
    const res = await sql`insert into ${this.t('processed')} (msg_id) values (${msgId}) on conflict do nothing`.execute(
      this.db,
    );
    return Number(res.numAffectedRows ?? 0) > 0;
  }

  async user(e: UserUpdated): Promise<void> {
    await sql`insert into ${this.t('users')} as x (id, full_name, at) values (${e.user}, ${e.full_name}, ${e.at})
      on conflict (id) do update set full_name = excluded.full_name, at = excluded.at where x.at <= excluded.at`.execute(
      this.db,
    );
  }

  async organization(e: OrganizationChanged): Promise<void> {
    await sql`insert into ${this.t('organizations')} as x (name, title, suspended, at)
      values (${e.organization}, ${e.title}, ${e.suspended}, ${e.at})
      on conflict (name) do update set title = excluded.title, suspended = excluded.suspended, at = excluded.at
      where x.at <= excluded.at`.execute(this.db);
  }

  async membership(e: MembershipChanged): Promise<void> {
    await sql`insert into ${this.t('memberships')} as x (org, user_id, role, at)
      values (${e.organization}, ${e.user}, ${e.role}, ${e.at})
      on conflict (org, user_id) do update set role = excluded.role, at = excluded.at where x.at <= excluded.at`.execute(
      this.db,
    );
  }

  async course(e: CourseCardChanged): Promise<void> {
    const lessons = e.lessons.map((l) => ({ id: l.id, key: l.key, title: l.title }));
    const document = e.document ? JSON.stringify(e.document) : null;
    await sql`insert into ${this.t('courses')} as x (course, revision, title, lessons, lessons_total, document)
      values (${e.course}, ${e.revision}, ${e.title}, ${JSON.stringify(lessons)}::jsonb, ${lessons.length}, ${document}::jsonb)
      on conflict (course) do update set revision = excluded.revision, title = excluded.title,
        lessons = excluded.lessons, lessons_total = excluded.lessons_total, document = excluded.document
      where x.revision < excluded.revision`.execute(this.db);
  }

  async enrolled(e: Enrolled): Promise<void> {
    await sql`insert into ${this.t('enrollments')} as x (user_id, course, space, organization, self_enrolled, enrolled_at)
      values (${e.user}, ${e.course}, ${e.space}, ${e.organization}, ${e.self_enrolled}, ${e.at})
      on conflict (user_id, course, space) do update set enrolled_at = least(x.enrolled_at, excluded.enrolled_at)`.execute(
      this.db,
    );
  }

  async assignment(e: AssignmentChanged): Promise<void> {
    await sql`insert into ${this.t('enrollments')} as x
        (user_id, course, space, organization, self_enrolled, mandatory, deadline, enrolled_at, assignment_at)
      values (${e.user}, ${e.course}, ${e.space}, ${e.organization}, false, ${e.mandatory}, ${e.deadline}, ${e.at}, ${e.at})
      on conflict (user_id, course, space) do update set self_enrolled = false, mandatory = excluded.mandatory,
        deadline = excluded.deadline, assignment_at = excluded.assignment_at
      where x.assignment_at is null or x.assignment_at <= excluded.assignment_at`.execute(this.db);
  }

  /**
   * Runs a write together with the newest-activity mark of the user in the course, as one
   * statement (one round trip): `with w as (<write>) <touch>`.
   */
  private async withTouch(write: RawBuilder<unknown>, user: string, course: string, at: string): Promise<void> {
    await sql`with w as (${write}) insert into ${this.t('progress')} as x (user_id, course, last_activity)
      values (${user}, ${course}, ${at})
      on conflict (user_id, course) do update set last_activity = greatest(x.last_activity, excluded.last_activity)`.execute(
      this.db,
    );
  }

  async sessionStarted(e: SessionStarted): Promise<void> {
    const objectives = e.objectives.map((o) => ({ key: o.key, text: o.text }));
    await this.withTouch(
      sql`insert into ${this.t('sessions')} as x
        (session, user_id, course, lesson, lesson_key, space, organization, status, started_at, objectives, status_at)
      values (${e.session}, ${e.user}, ${e.course}, ${e.lesson}, ${e.lesson_key}, ${e.space}, ${e.organization},
        'in_progress', ${e.at}, ${JSON.stringify(objectives)}::jsonb, ${e.at})
      on conflict (session) do update set started_at = least(x.started_at, excluded.started_at),
        objectives = excluded.objectives`,
      e.user,
      e.course,
      e.at,
    );
    if (e.abandoned) await this.sessionStatus({ ...e, session: e.abandoned }, 'abandoned');
  }

  /** Advances a session's status (in_progress → covered → passed), creating the row if its start is not here yet. */
  async sessionStatus(e: LessonPlace, status: 'covered' | 'abandoned' | 'passed'): Promise<void> {
    await this.withTouch(
      sql`insert into ${this.t('sessions')} as x
        (session, user_id, course, lesson, lesson_key, space, organization, status, started_at, status_at)
      values (${e.session}, ${e.user}, ${e.course}, ${e.lesson}, ${e.lesson_key}, ${e.space}, ${e.organization},
        ${status}, ${e.at}, ${e.at})
      on conflict (session) do update set status = excluded.status, status_at = excluded.status_at
      where array_position(${SESSION_ORDER}, x.status) < array_position(${SESSION_ORDER}, excluded.status)`,
      e.user,
      e.course,
      e.at,
    );
  }

  /** An objective's status; a mark that covered the lesson (`lesson_covered`) also advances the session. */
  async goalMarked(e: GoalMarked): Promise<void> {
    if (e.lesson_covered) await this.sessionStatus(e, 'covered');
    await this.withTouch(
      sql`insert into ${this.t('objective_statuses')} as x (session, objective, status, at)
      values (${e.session}, ${e.objective}, ${e.objective_status}, ${e.at})
      on conflict (session, objective) do update set status = excluded.status, at = excluded.at
      where x.at <= excluded.at`,
      e.user,
      e.course,
      e.at,
    );
  }

  /** A passed lesson: the session, the course's progress and the attempt that passed it (`quiz_attempt`). */
  async lessonPassed(e: LessonPassed): Promise<void> {
    await this.sessionStatus(e, 'passed');
    await this.progress(progressRow(e));
    await this.verdict(e);
  }

  /** A lesson that can no longer be passed: the course's progress and its last attempt (no session changes). */
  async lessonFailed(e: LessonFailed): Promise<void> {
    await this.progress(progressRow(e));
    await this.verdict(e);
  }

  /** The attempt a lesson_passed or lesson_failed carries, written as its quiz_attempt_finished did before. */
  private async verdict(e: LessonPassed | LessonFailed): Promise<void> {
    const v = e.quiz_attempt;
    if (v) await this.attempt({ ...e, ...v }, v.passed ? 'Passed' : 'Failed', v.score, v.passed);
  }

  /** The course's progress as lessons reported it last (newest `at` wins). */
  private async progress(r: ProgressRow): Promise<void> {
    const newer = sql`x.progress_at is null or x.progress_at <= excluded.progress_at`;
    await sql`insert into ${this.t('progress')} as x
        (user_id, course, lessons_passed, lessons_total, completed, lessons_failed, finished, progress_at, last_activity)
      values (${r.user_id}, ${r.course}, ${r.lessons_passed}, ${r.lessons_total}, ${r.completed},
        ${r.lessons_failed}, ${r.finished}, ${r.at}, ${r.at})
      on conflict (user_id, course) do update set
        lessons_passed = case when ${newer} then excluded.lessons_passed else x.lessons_passed end,
        lessons_total = case when ${newer} then excluded.lessons_total else x.lessons_total end,
        completed = case when ${newer} then excluded.completed else x.completed end,
        lessons_failed = case when ${newer} then excluded.lessons_failed else x.lessons_failed end,
        finished = case when ${newer} then excluded.finished else x.finished end,
        progress_at = greatest(x.progress_at, excluded.progress_at),
        last_activity = greatest(x.last_activity, excluded.last_activity)`.execute(this.db);
  }

  async attemptFinished(e: QuizAttemptFinished): Promise<void> {
    await this.attempt(e, e.passed ? 'Passed' : 'Failed', e.score, e.passed);
  }

  /** A cancelled attempt does not count: score 0, not passed (spec 000, student_detail). */
  async attemptCancelled(e: QuizAttemptCancelled): Promise<void> {
    await this.attempt(e, 'Cancelled', 0, false);
  }

  private async attempt(
    e: LessonPlace & { attempt: string; number: number },
    status: string,
    score: number,
    passed: boolean,
  ) {
    await this.withTouch(
      sql`insert into ${this.t('attempts')}
        (attempt, user_id, course, lesson, lesson_key, session, space, number, status, score, passed, finished_at)
      values (${e.attempt}, ${e.user}, ${e.course}, ${e.lesson}, ${e.lesson_key}, ${e.session}, ${e.space}, ${e.number},
        ${status}, ${score}, ${passed}, ${e.at})
      on conflict (attempt) do nothing`,
      e.user,
      e.course,
      e.at,
    );
  }

  async homework(e: HomeworkChanged): Promise<void> {
    const lessonKey = parseLessonId(e.lesson)?.key ?? e.lesson;
    await this.withTouch(
      sql`insert into ${this.t('homework')} as x
        (user_id, lesson, space, course, lesson_key, organization, status, version, due_at, at)
      values (${e.user}, ${e.lesson}, ${e.space}, ${e.course}, ${lessonKey}, ${e.organization}, ${e.status},
        ${e.version}, ${e.due_at}, ${e.at})
      on conflict (user_id, lesson, space) do update set status = excluded.status, version = excluded.version,
        due_at = excluded.due_at, at = excluded.at
      where x.at <= excluded.at`,
      e.user,
      e.course,
      e.at,
    );
  }

  async document(e: DocumentUpdated): Promise<void> {
    await this.withTouch(
      sql`insert into ${this.t('documents')} as x
        (user_id, course, space, artifact, organization, title, blocks_total, blocks_filled, at)
      values (${e.user}, ${e.course}, ${e.space}, ${e.artifact}, ${e.organization}, ${e.title}, ${e.blocks_total},
        ${e.blocks_filled}, ${e.at})
      on conflict (user_id, course, space, artifact) do update set title = excluded.title,
        blocks_total = excluded.blocks_total, blocks_filled = excluded.blocks_filled, at = excluded.at
      where x.at <= excluded.at`,
      e.user,
      e.course,
      e.at,
    );
  }
}

/**
 * A row for one set-based writer of a batch ({@link BatchProjection}): the fields the writer's
 * statement reads, with timestamps as the events carry them.
 */
export type BatchRow = Record<string, unknown>;

/** The set-based writers: each is one statement for all its rows of a batch. */
export type BatchWriter =
  | 'user'
  | 'organization'
  | 'membership'
  | 'course'
  | 'enrolled'
  | 'assignment'
  | 'sessionStarted'
  | 'sessionStatus'
  | 'objective'
  | 'progress'
  | 'attempt'
  | 'homework'
  | 'document'
  | 'touch';

/**
 * Writes a batch of events with one statement per writer: the rows go in as one jsonb array
 * (`jsonb_to_recordset`, with `ord` = their order in the batch), are reduced in SQL to one row
 * per key exactly as applying them one after another would leave it (newest `at` wins, a tie goes
 * to the later event; `least`/`greatest` where the one-by-one write uses them; the first event's
 * values where only the insert sets them), and are upserted with the same conflict rule as the
 * one-by-one writes of {@link ProjectionRepository}. Writers of the same table whose one-by-one
 * writes do not commute (enrolled/assignment, session started/status) never share a key within
 * one call: the projector cuts the batch there.
 */
export class BatchProjection {
  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: raw SQL over a schema chosen at run time
    private readonly db: Kysely<any>,
    private readonly schema: string,
  ) {}

  private t(table: string): RawBuilder<unknown> {
    return sql.table(`${this.schema}.${table}`);
  }

  /** Runs each writer's statement for its rows (in a fixed order; writers of one call commute). */
  async write(rows: Map<BatchWriter, BatchRow[]>): Promise<void> {
    for (const writer of WRITER_ORDER) {
      const list = rows.get(writer);
      if (!list?.length) continue;
      const json = JSON.stringify(list.map((row, ord) => ({ ...row, ord })));
      await this.statement(writer, sql`${json}::jsonb`).execute(this.db);
    }
  }

  private statement(writer: BatchWriter, json: RawBuilder<unknown>): RawBuilder<unknown> {
    switch (writer) {
      case 'user':
        return sql`insert into ${this.t('users')} as x (id, full_name, at)
          select distinct on (id) id, full_name, at
          from jsonb_to_recordset(${json}) as r(ord int, id text, full_name text, at timestamptz)
          order by id, at desc, ord desc
          on conflict (id) do update set full_name = excluded.full_name, at = excluded.at where x.at <= excluded.at`;
      case 'organization':
        return sql`insert into ${this.t('organizations')} as x (name, title, suspended, at)
          select distinct on (name) name, title, suspended, at
          from jsonb_to_recordset(${json}) as r(ord int, name text, title text, suspended boolean, at timestamptz)
          order by name, at desc, ord desc
          on conflict (name) do update set title = excluded.title, suspended = excluded.suspended, at = excluded.at
          where x.at <= excluded.at`;
      case 'membership':
        return sql`insert into ${this.t('memberships')} as x (org, user_id, role, at)
          select distinct on (org, user_id) org, user_id, role, at
          from jsonb_to_recordset(${json}) as r(ord int, org text, user_id text, role text, at timestamptz)
          order by org, user_id, at desc, ord desc
          on conflict (org, user_id) do update set role = excluded.role, at = excluded.at where x.at <= excluded.at`;
      case 'course':
        // The highest revision wins; of equal revisions the first (the one-by-one write needs a higher one).
        return sql`insert into ${this.t('courses')} as x (course, revision, title, lessons, lessons_total, document)
          select distinct on (course) course, revision, title, lessons, lessons_total, document
          from jsonb_to_recordset(${json})
            as r(ord int, course text, revision int, title text, lessons jsonb, lessons_total int, document jsonb)
          order by course, revision desc, ord
          on conflict (course) do update set revision = excluded.revision, title = excluded.title,
            lessons = excluded.lessons, lessons_total = excluded.lessons_total, document = excluded.document
          where x.revision < excluded.revision`;
      case 'enrolled':
        // The first event inserts; later ones only lower enrolled_at.
        return sql`insert into ${this.t('enrollments')} as x
            (user_id, course, space, organization, self_enrolled, enrolled_at)
          select distinct on (user_id, course, space) user_id, course, space, organization, self_enrolled,
            min(at) over (partition by user_id, course, space)
          from jsonb_to_recordset(${json})
            as r(ord int, user_id text, course text, space text, organization text, self_enrolled boolean, at timestamptz)
          order by user_id, course, space, ord
          on conflict (user_id, course, space) do update set enrolled_at = least(x.enrolled_at, excluded.enrolled_at)`;
      case 'assignment':
        // organization and enrolled_at: the first event's (only the insert sets them); the rest: the newest.
        return sql`insert into ${this.t('enrollments')} as x
            (user_id, course, space, organization, self_enrolled, mandatory, deadline, enrolled_at, assignment_at)
          select distinct on (user_id, course, space) user_id, course, space,
            first_value(organization) over first, false, mandatory, deadline, first_value(at) over first, at
          from jsonb_to_recordset(${json}) as r(ord int, user_id text, course text, space text, organization text,
            mandatory boolean, deadline timestamptz, at timestamptz)
          window first as (partition by user_id, course, space order by ord)
          order by user_id, course, space, at desc, ord desc
          on conflict (user_id, course, space) do update set self_enrolled = false, mandatory = excluded.mandatory,
            deadline = excluded.deadline, assignment_at = excluded.assignment_at
          where x.assignment_at is null or x.assignment_at <= excluded.assignment_at`;
      case 'sessionStarted':
        // The first event inserts (status_at); started_at is the earliest; objectives the last event's.
        return sql`insert into ${this.t('sessions')} as x
            (session, user_id, course, lesson, lesson_key, space, organization, status, started_at, objectives, status_at)
          select distinct on (session) session, user_id, course, lesson, lesson_key, space, organization,
            'in_progress', min(at) over whole, last_value(objectives) over whole, at
          from jsonb_to_recordset(${json}) as r(ord int, session text, user_id text, course text, lesson text,
            lesson_key text, space text, organization text, objectives jsonb, at timestamptz)
          window whole as (partition by session order by ord rows between unbounded preceding and unbounded following)
          order by session, ord
          on conflict (session) do update set started_at = least(x.started_at, excluded.started_at),
            objectives = excluded.objectives`;
      case 'sessionStatus':
        // The first event inserts (started_at); the status is the furthest, its time the first event that reached it.
        return sql`insert into ${this.t('sessions')} as x
            (session, user_id, course, lesson, lesson_key, space, organization, status, started_at, status_at)
          select distinct on (session) session, user_id, course, lesson, lesson_key, space, organization,
            first_value(status) over furthest, at, first_value(at) over furthest
          from jsonb_to_recordset(${json}) as r(ord int, session text, user_id text, course text, lesson text,
            lesson_key text, space text, organization text, status text, at timestamptz)
          window furthest as (partition by session order by array_position(${SESSION_ORDER}, status) desc, ord)
          order by session, ord
          on conflict (session) do update set status = excluded.status, status_at = excluded.status_at
          where array_position(${SESSION_ORDER}, x.status) < array_position(${SESSION_ORDER}, excluded.status)`;
      case 'objective':
        return sql`insert into ${this.t('objective_statuses')} as x (session, objective, status, at)
          select distinct on (session, objective) session, objective, status, at
          from jsonb_to_recordset(${json}) as r(ord int, session text, objective text, status text, at timestamptz)
          order by session, objective, at desc, ord desc
          on conflict (session, objective) do update set status = excluded.status, at = excluded.at
          where x.at <= excluded.at`;
      case 'progress':
        return sql`insert into ${this.t('progress')} as x
            (user_id, course, lessons_passed, lessons_total, completed, lessons_failed, finished, progress_at,
              last_activity)
          select distinct on (user_id, course) user_id, course, lessons_passed, lessons_total, completed,
            lessons_failed, finished, at, at
          from jsonb_to_recordset(${json}) as r(ord int, user_id text, course text, lessons_passed int,
            lessons_total int, completed boolean, lessons_failed int, finished boolean, at timestamptz)
          order by user_id, course, at desc, ord desc
          on conflict (user_id, course) do update set
            lessons_passed = case when x.progress_at is null or x.progress_at <= excluded.progress_at then excluded.lessons_passed else x.lessons_passed end,
            lessons_total = case when x.progress_at is null or x.progress_at <= excluded.progress_at then excluded.lessons_total else x.lessons_total end,
            completed = case when x.progress_at is null or x.progress_at <= excluded.progress_at then excluded.completed else x.completed end,
            lessons_failed = case when x.progress_at is null or x.progress_at <= excluded.progress_at then excluded.lessons_failed else x.lessons_failed end,
            finished = case when x.progress_at is null or x.progress_at <= excluded.progress_at then excluded.finished else x.finished end,
            progress_at = greatest(x.progress_at, excluded.progress_at),
            last_activity = greatest(x.last_activity, excluded.last_activity)`;
      case 'attempt':
        // An attempt is written once: the first event wins.
        return sql`insert into ${this.t('attempts')}
            (attempt, user_id, course, lesson, lesson_key, session, space, number, status, score, passed, finished_at)
          select distinct on (attempt) attempt, user_id, course, lesson, lesson_key, session, space, number, status,
            score, passed, at
          from jsonb_to_recordset(${json}) as r(ord int, attempt text, user_id text, course text, lesson text,
            lesson_key text, session text, space text, number int, status text, score double precision,
            passed boolean, at timestamptz)
          order by attempt, ord
          on conflict (attempt) do nothing`;
      case 'homework':
        return sql`insert into ${this.t('homework')} as x
            (user_id, lesson, space, course, lesson_key, organization, status, version, due_at, at)
          select distinct on (user_id, lesson, space) user_id, lesson, space, course, lesson_key, organization, status,
            version, due_at, at
          from jsonb_to_recordset(${json}) as r(ord int, user_id text, lesson text, space text, course text,
            lesson_key text, organization text, status text, version int, due_at timestamptz, at timestamptz)
          order by user_id, lesson, space, at desc, ord desc
          on conflict (user_id, lesson, space) do update set status = excluded.status, version = excluded.version,
            due_at = excluded.due_at, at = excluded.at
          where x.at <= excluded.at`;
      case 'document':
        return sql`insert into ${this.t('documents')} as x
            (user_id, course, space, artifact, organization, title, blocks_total, blocks_filled, at)
          select distinct on (user_id, course, space, artifact) user_id, course, space, artifact, organization, title,
            blocks_total, blocks_filled, at
          from jsonb_to_recordset(${json}) as r(ord int, user_id text, course text, space text, artifact text,
            organization text, title text, blocks_total int, blocks_filled int, at timestamptz)
          order by user_id, course, space, artifact, at desc, ord desc
          on conflict (user_id, course, space, artifact) do update set title = excluded.title,
            blocks_total = excluded.blocks_total, blocks_filled = excluded.blocks_filled, at = excluded.at
          where x.at <= excluded.at`;
      case 'touch':
        return sql`insert into ${this.t('progress')} as x (user_id, course, last_activity)
          select user_id, course, max(at)
          from jsonb_to_recordset(${json}) as r(user_id text, course text, at timestamptz)
          group by user_id, course
          on conflict (user_id, course) do update set last_activity = greatest(x.last_activity, excluded.last_activity)`;
    }
  }
}

/** The order the writers run in within one call (any order gives the same result). */
const WRITER_ORDER: BatchWriter[] = [
  'user',
  'organization',
  'membership',
  'course',
  'enrolled',
  'assignment',
  'sessionStarted',
  'sessionStatus',
  'objective',
  'progress',
  'attempt',
  'homework',
  'document',
  'touch',
];
