import type {
  AssignmentChanged,
  CourseCardChanged,
  DocumentUpdated,
  Enrolled,
  GoalMarked,
  HomeworkChanged,
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

/** Session statuses in the order they advance; a session never goes back. */
const SESSION_ORDER = sql`array['in_progress', 'covered', 'passed']`;

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
    await sql`insert into ${this.t('courses')} as x (course, revision, title, lessons, lessons_total)
      values (${e.course}, ${e.revision}, ${e.title}, ${JSON.stringify(lessons)}::jsonb, ${lessons.length})
      on conflict (course) do update set revision = excluded.revision, title = excluded.title,
        lessons = excluded.lessons, lessons_total = excluded.lessons_total
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
  }

  /** Advances a session's status (in_progress → covered → passed), creating the row if its start is not here yet. */
  async sessionStatus(e: LessonPlace, status: 'covered' | 'passed'): Promise<void> {
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

  async goalMarked(e: GoalMarked): Promise<void> {
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

  async lessonPassed(e: LessonPassed): Promise<void> {
    await this.sessionStatus(e, 'passed');
    await sql`insert into ${this.t('progress')} as x
        (user_id, course, lessons_passed, lessons_total, completed, progress_at, last_activity)
      values (${e.user}, ${e.course}, ${e.lessons_passed}, ${e.lessons_total}, ${e.course_completed}, ${e.at}, ${e.at})
      on conflict (user_id, course) do update set
        lessons_passed = case when x.progress_at is null or x.progress_at <= excluded.progress_at then excluded.lessons_passed else x.lessons_passed end,
        lessons_total = case when x.progress_at is null or x.progress_at <= excluded.progress_at then excluded.lessons_total else x.lessons_total end,
        completed = case when x.progress_at is null or x.progress_at <= excluded.progress_at then excluded.completed else x.completed end,
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

  private async attempt(e: QuizAttemptFinished | QuizAttemptCancelled, status: string, score: number, passed: boolean) {
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
